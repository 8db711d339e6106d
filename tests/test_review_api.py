"""Review through the API (issue 35): a submission is no item until its workflow publishes it;
the refusals of the issue's "Bad input" say why and change nothing; a person given a role late
sees the tasks already waiting; the history keeps every transition with its reason."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from archive.models import (
    Collection,
    Item,
    ProfileField,
    Provenance,
    Submission,
    Task,
    Transition,
)
from archive.review import services as review
from tests import factories as make

pytestmark = pytest.mark.django_db

SUBMISSIONS, TASKS = "/api/submissions/", "/api/tasks/"


@pytest.fixture
def place():
    """Two collections of one programme: "teses" reviewed once, "outra" reviewed by others;
    alice submits, rita reviews teses, bruno reviews outra only, ada administers teses."""
    unit = make.community("ppg")
    teses = make.collection("teses", unit)
    outra = make.collection("outra", unit)
    make.reviewed(teses, submitter="Students", reviewer="Reviewers", administrator="Admins")
    make.reviewed(outra, reviewer="Others")
    people = {name: make.person(name, *groups) for name, groups in (
        ("alice", ["Students"]), ("rita", ["Reviewers"]), ("bruno", ["Others"]),
        ("ada", ["Admins"]), ("carol", []))}
    apis = {name: make.token_client(user) for name, user in people.items()}
    return {"teses": teses, "outra": outra, "people": people, "api": apis}


def _state(pk: int) -> tuple[str, int, int, int]:
    """What a refusal must leave as it was: the state, the version, the history's length, the
    open tasks."""
    submission = Submission.objects.get(pk=pk)
    return (submission.state, submission.version, Transition.objects.filter(
        submission=submission).count(), Task.objects.filter(submission=submission,
                                                            closed__isnull=True).count())


def _post(api, url: str, data: dict | None = None):
    return api.post(url, data or {}, format="json", secure=True)


def test_a_submission_goes_through_review_to_an_ibi_and_every_bad_request_changes_nothing(
        place):
    api, items = place["api"], Item.objects.count()
    made = _post(api["alice"], SUBMISSIONS, {
        "collection": "teses", "title": "Uma tese sobre jabuticabas", "language": "pt-BR",
        "metadata": [{"field": "dc.creator", "value": "Silva, Alice"}],
        "licence_text": make.LICENCE})
    assert made.status_code == 201, made.content
    pk, body = made.json()["id"], made.json()
    assert body["state"] == "draft" and body["item"] is None and body["version"] == 1
    assert Item.objects.count() == items  # no item, no IBI

    # Someone else's submission, a stale form, submitting without the licence accepted.
    before = _state(pk)
    assert _post(api["bruno"], f"{SUBMISSIONS}{pk}/submit").status_code == 403
    assert api["rita"].patch(f"{SUBMISSIONS}{pk}", {"version": 1, "title": "x"},
                             format="json", secure=True).status_code == 403
    stale = api["alice"].patch(f"{SUBMISSIONS}{pk}", {"version": 7, "title": "x"},
                               format="json", secure=True)
    assert stale.status_code == 409 and "version" in stale.json()["detail"]
    unaccepted = _post(api["alice"], f"{SUBMISSIONS}{pk}/submit")
    assert unaccepted.status_code == 400 and "licence" in unaccepted.json()["detail"]
    assert _state(pk) == before
    assert _post(api["carol"], SUBMISSIONS, {"collection": "teses"}).status_code == 403

    changed = api["alice"].patch(f"{SUBMISSIONS}{pk}", {"version": 1, "licence_accepted": True},
                                 format="json", secure=True)
    assert changed.status_code == 200 and changed.json()["version"] == 2
    submitted = _post(api["alice"], f"{SUBMISSIONS}{pk}/submit", {"version": 2})
    assert submitted.status_code == 200 and submitted.json()["state"] == "in_review"
    assert _post(api["alice"], f"{SUBMISSIONS}{pk}/submit").status_code == 409
    # In review, it is no item: no search, OAI-PMH, sitemap or persistent URL knows it.
    reader = Client()
    for url in ("/search?q=jabuticabas", "/oai?verb=ListRecords&metadataPrefix=oai_dc",
                "/sitemaps/items-0.xml", "/api/items/?search=jabuticabas"):
        answer = reader.get(url, secure=True)
        assert answer.status_code in (200, 404) and b"Uma tese sobre" not in answer.content, url

    # The pools: rita's, not bruno's (a reviewer of another collection), nor alice's.
    listed = api["rita"].get(TASKS, secure=True).json()
    task = next(t for t in listed["results"] if t["submission"]["id"] == pk)["id"]
    assert [t for t in api["bruno"].get(TASKS, secure=True).json()["results"]] == []
    before = _state(pk)
    assert _post(api["bruno"], f"{TASKS}{task}/claim").status_code == 403
    assert _post(api["alice"], f"{TASKS}{task}/claim").status_code == 403
    assert _post(api["rita"], f"{TASKS}{task}/approve").status_code == 403  # not claimed
    assert _post(api["rita"], f"{TASKS}{task}/release").status_code == 403  # admins only
    assert _state(pk) == before
    assert _post(api["rita"], f"{TASKS}{task}/claim").status_code == 200
    assert _post(api["ada"], f"{TASKS}{task}/claim").status_code == 409  # claimed already
    before = _state(pk)
    no_reason = _post(api["rita"], f"{TASKS}{task}/return", {"reason": "  "})
    assert no_reason.status_code == 400 and "reason" in no_reason.json()["detail"]
    assert _post(api["rita"], f"{TASKS}{task}/approve", {"version": 1}).status_code == 409
    assert _state(pk) == before
    returned = _post(api["rita"], f"{TASKS}{task}/return",
                     {"reason": "Falta o resumo em inglês"})
    assert returned.status_code == 200
    assert Submission.objects.get(pk=pk).state == "returned"
    assert _post(api["rita"], f"{TASKS}{task}/approve").status_code == 409  # closed

    # Resubmitted: a reviewer who joins now sees the task waiting (DSpace #3175).
    version = Submission.objects.get(pk=pk).version
    assert _post(api["alice"], f"{SUBMISSIONS}{pk}/submit",
                 {"version": version}).json()["state"] == "in_review"
    assert api["carol"].get(TASKS, secure=True).json()["results"] == []
    place["people"]["carol"].groups.add(Group.objects.get(name="Reviewers"))
    waiting = api["carol"].get(TASKS, secure=True).json()["results"]
    assert [t["submission"]["id"] for t in waiting] == [pk]
    task = waiting[0]["id"]
    assert _post(api["carol"], f"{TASKS}{task}/claim").status_code == 200
    # The administrator returns it to the pool and gives it to rita.
    assert _post(api["ada"], f"{TASKS}{task}/release").status_code == 200
    assert _post(api["ada"], f"{TASKS}{task}/reassign",
                 {"assignee": "alice"}).status_code == 403  # not her own
    assert _post(api["ada"], f"{TASKS}{task}/reassign",
                 {"assignee": "rita"}).status_code == 200
    assert _post(api["carol"], f"{TASKS}{task}/approve").status_code == 403
    approved = _post(api["rita"], f"{TASKS}{task}/approve")
    assert approved.status_code == 200, approved.content
    assert _post(api["rita"], f"{TASKS}{task}/approve").status_code == 409  # twice

    published = api["alice"].get(f"{SUBMISSIONS}{pk}", secure=True).json()
    assert published["state"] == "published"
    item = Item.objects.get(ibi=published["item"])
    assert item.title == "Uma tese sobre jabuticabas" and item.collection == place["teses"]
    assert item.dc("creator") == ["Silva, Alice"]
    assert b"Uma tese sobre" in Client().get("/search?q=jabuticabas",
                                             secure=True).content  # the control
    assert Item.objects.count() == items + 1
    assert _post(api["alice"], f"{SUBMISSIONS}{pk}/withdraw").status_code == 409
    history = list(Transition.objects.filter(submission_id=pk).values_list(
        "action", "actor_name", "from_state", "to_state", "reason"))
    assert ("return", "rita", "in_review", "returned", "Falta o resumo em inglês") in history
    assert history[-1][:4] == ("publish", "rita", "approved", "published")
    assert [row[0] for row in history] == [
        "create", "submit", "submit", "claim", "return", "resubmit", "resubmit", "claim",
        "release", "reassign", "approve", "publish"]


def test_no_role_or_flag_publishes_directly_into_a_reviewed_collection(place):
    from archive.review import selectors

    root = User.objects.create_superuser("root", password="x")
    for user in (root, *place["people"].values()):
        assert not selectors.may_publish_directly(user, place["teses"])
    assert selectors.may_publish_directly(root, make.collection("aberta", place["teses"]
                                                                .community))


def test_a_withdrawn_or_returned_submission_burns_no_ibi(place):
    alice = place["people"]["alice"]
    items = Item.objects.count()
    draft = make.submission(alice, place["teses"])
    review.submit(user=alice, submission=draft)
    review.withdraw(user=alice, submission=draft, reason="desisti")
    assert Submission.objects.get(pk=draft.pk).state == "withdrawn"
    assert not Task.objects.filter(submission=draft, closed__isnull=True).exists()
    assert Item.objects.count() == items
    refused = _post(place["api"]["alice"], f"{SUBMISSIONS}{draft.pk}/submit")
    assert refused.status_code == 409


def test_three_steps_pass_from_reviewer_to_editor_and_a_dated_collection_waits(place):
    unit = make.community("ppg2")
    three = make.collection("tres", unit)
    later = timezone.localdate() + timedelta(days=10)
    make.reviewed(three, "three", publish_on=later, submitter="Students",
                  reviewer="Reviewers", editor="Editors", administrator="Admins")
    alice, rita = place["people"]["alice"], place["people"]["rita"]
    edna = make.person("edna", "Editors")
    draft = make.submission(alice, three)
    review.submit(user=alice, submission=draft)
    task = Task.objects.get(submission=draft, closed__isnull=True)
    assert task.role == "reviewer"
    review.task_act(user=rita, task=task, action="claim")
    review.task_act(user=rita, task=task, action="approve")
    task = Task.objects.get(submission=draft, closed__isnull=True)
    assert (task.step, task.role) == (1, "editor")
    refused = _post(place["api"]["rita"], f"{TASKS}{task.pk}/claim")
    assert refused.status_code == 403 and "editor" in refused.json()["detail"]
    for _step in (1, 2):
        task = Task.objects.get(submission=draft, closed__isnull=True)
        review.task_act(user=edna, task=task, action="claim")
        review.task_act(user=edna, task=task, action="approve")
    draft.refresh_from_db()
    assert (draft.state, draft.item) == ("approved", None)  # approved, not yet published
    assert review.publish_due(today=later - timedelta(days=1)) == ([], [])
    out = io.StringIO()
    call_command("publishapproved", "--today", later.isoformat(), stdout=out)
    assert "1 published" in out.getvalue()
    draft.refresh_from_db()
    assert draft.state == "published" and draft.item.ibi


def test_the_profile_s_required_fields_are_asked_at_submission(place):
    profile = make.profile("exigente", "dc.creator", "dc.subject")
    ProfileField.objects.filter(profile=profile, field__element="subject").update(
        required=True)
    place["teses"].profile = profile
    place["teses"].save()
    draft = make.submission(place["people"]["alice"], place["teses"])
    before = _state(draft.pk)
    refused = _post(place["api"]["alice"], f"{SUBMISSIONS}{draft.pk}/submit")
    assert refused.status_code == 400 and "dc.subject" in refused.json()["detail"]
    assert _state(draft.pk) == before


def test_no_account_reads_or_writes_a_submission(anonymous_api, place):
    for url in (SUBMISSIONS, TASKS):
        assert anonymous_api.get(url, secure=True).status_code == 401
    assert _post(anonymous_api, SUBMISSIONS, {"collection": "teses"}).status_code == 401


def test_librarians_read_the_history_in_the_admin_and_change_nothing(place, librarian_client):
    alice, rita = place["people"]["alice"], place["people"]["rita"]
    draft = make.submission(alice, place["teses"], title="Tese devolvida")
    review.submit(user=alice, submission=draft)
    task = Task.objects.get(submission=draft, closed__isnull=True)
    review.task_act(user=rita, task=task, action="claim")
    review.task_act(user=rita, task=task, action="return", reason="Falta o resumo")
    listed = librarian_client.get("/admin/archive/submission/", secure=True)
    assert listed.status_code == 200 and "Tese devolvida" in listed.content.decode()
    page = librarian_client.get(f"/admin/archive/submission/{draft.pk}/change/", secure=True)
    text = page.content.decode()
    assert page.status_code == 200 and "Falta o resumo" in text and "rita" in text
    before = _state(draft.pk)
    posted = librarian_client.post(f"/admin/archive/submission/{draft.pk}/change/",
                                   {"title": "x"}, secure=True)
    assert posted.status_code == 403 and _state(draft.pk) == before
    for url in ("/admin/archive/collectionrole/", "/admin/archive/workflow/",
                "/admin/archive/workflow/add/", "/admin/archive/collectionrole/add/"):
        assert librarian_client.get(url, secure=True).status_code == 200, url


def test_without_a_workflow_a_submitter_s_submission_is_published_on_submit(place):
    unit = make.community("ppg3")
    free = make.collection("livre", unit)
    make.reviewed(free, "none", submitter="Students")
    alice = place["people"]["alice"]
    draft = make.submission(alice, free, title="Sem revisão")
    review.submit(user=alice, submission=draft)
    draft.refresh_from_db()
    assert draft.state == "published" and draft.item.collection == free
    assert [t.to_state for t in draft.transitions.all()] == [
        "draft", "submitted", "approved", "published"]
    assert not Task.objects.filter(submission=draft).exists()


def test_a_new_edition_of_a_reviewed_item_is_not_published_unreviewed_elsewhere(place):
    """Submitted to a collection without review, a new edition (or translation) of an item
    of a reviewed collection is refused at submission, as a direct deposit would be."""
    before = make.item(title="Primeira edição", collection=place["outra"],
                       provenance=Provenance.PUBLISHED_ELSEWHERE)
    make.reviewed(make.collection("livre2", make.community("ppg4")), "none",
                  submitter="Students")
    alice = place["people"]["alice"]
    draft = make.submission(alice, Collection.objects.get(slug="livre2"),
                            previous_edition=before)
    state = _state(draft.pk)
    refused = _post(place["api"]["alice"], f"{SUBMISSIONS}{draft.pk}/submit")
    assert refused.status_code == 403 and "reviews" in refused.json()["detail"]
    assert _state(draft.pk) == state
    assert not Item.objects.filter(previous_edition=before).exists()


@pytest.mark.parametrize("path", ["/api/submissions/-1", "/api/submissions/abc/submit",
                                  "/api/tasks/99999999999999999999/claim", "/api/tasks/x/return"])
def test_what_is_no_id_is_a_json_404_naming_it(place, path):
    api = place["api"]["alice"]
    answer = (api.get(path, secure=True) if path.count("/") == 3 else _post(api, path))
    assert answer.status_code == 404, answer.content
    assert answer["Content-Type"].startswith("application/json")
    assert repr(path.split("/")[3]) in answer.json()["detail"]
