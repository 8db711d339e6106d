"""The reviewer's queue outside the admin (issue 35, 7 and 9): /review/ lists the tasks in the
pools of the roles one holds, across collections, filtered and sorted; /review/<task>/ shows
the submission's metadata, files and history and acts through the review's services. A
reviewer of one collection sees nothing of another and cannot act there; every refusal is a
message with its status, nothing changed. In a browser: axe finds nothing, at 375 px too."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from archive.deposit import pending
from archive.models import Submission, Task, Transition
from archive.review import services as review
from tests import factories as make

pytestmark = pytest.mark.django_db

QUEUE = "/review/"


@pytest.fixture
def place():
    """Three collections: "teses" and "artigos", both reviewed by rita; "outra", by bruno;
    ada administers teses; alice and beto submit to both of rita's."""
    unit = make.community("ppg")
    teses = make.collection("teses", unit)
    artigos = make.collection("artigos", unit)
    outra = make.collection("outra", unit)
    make.reviewed(teses, submitter="Students", reviewer="Reviewers", administrator="Admins")
    make.reviewed(artigos, "three", submitter="Students", reviewer="Reviewers",
                  editor="Editors")
    make.reviewed(outra, submitter="Students", reviewer="Others")
    people = {name: make.person(name, *groups) for name, groups in (
        ("alice", ["Students"]), ("beto", ["Students"]), ("rita", ["Reviewers"]),
        ("rui", ["Reviewers"]), ("bruno", ["Others"]), ("ada", ["Admins"]),
        ("edu", ["Editors"]))}
    return {"teses": teses, "artigos": artigos, "outra": outra, **people}


def submitted(owner, collection, title: str, days: int = 0) -> Task:
    """A submission submitted `days` ago: its open task."""
    submission = review.submit(user=owner, submission=make.submission(owner, collection, title))
    task = submission.tasks.get(closed__isnull=True)
    if days:
        Task.objects.filter(pk=task.pk).update(created=timezone.now() - timedelta(days=days))
    return Task.objects.get(pk=task.pk)


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def listed(client, query: str = "") -> list[str]:
    """The titles the queue lists, in its order."""
    page = client.get(QUEUE + query, secure=True)
    assert page.status_code == 200, page.content
    return re.findall(r'<a href="/review/\d+/\?back=[^"]*">([^<]*)</a>', page.content.decode())


def state(task: Task) -> tuple:
    """What a refusal must leave as it was."""
    submission = Submission.objects.get(pk=task.submission_id)
    fresh = Task.objects.get(pk=task.pk)
    return (submission.state, submission.version, fresh.claimed_by_id, fresh.closed,
            Transition.objects.filter(submission=submission).count())


def test_the_queue_filters_and_sorts_the_tasks_of_every_pool_held(place):
    submitted(place["alice"], place["teses"], "Cupuaçu", days=40)
    week = submitted(place["beto"], place["artigos"], "Açaí", days=8)
    new = submitted(place["alice"], place["artigos"], "Bacuri")
    submitted(place["alice"], place["outra"], "Outro assunto")  # bruno's pool, not rita's
    rita = client_of(place["rita"])
    review.task_act(user=place["rita"], task=week, action="claim")
    review.task_act(user=place["rui"], task=new, action="claim")

    assert listed(rita) == ["Cupuaçu", "Açaí", "Bacuri"]  # the oldest first
    assert listed(rita, "?order=-age") == ["Bacuri", "Açaí", "Cupuaçu"]
    assert listed(rita, "?order=title") == ["Açaí", "Bacuri", "Cupuaçu"]
    assert listed(rita, "?order=submitter") == ["Cupuaçu", "Bacuri", "Açaí"]
    assert listed(rita, "?order=collection") == ["Açaí", "Bacuri", "Cupuaçu"]
    assert listed(rita, f"?collection={place['teses'].pk}") == ["Cupuaçu"]
    assert listed(rita, "?claimed=mine") == ["Açaí"]
    assert listed(rita, "?claimed=unclaimed") == ["Cupuaçu"]
    assert listed(rita, "?claimed=others") == ["Bacuri"]
    assert listed(rita, "?age=7") == ["Cupuaçu", "Açaí"]
    assert listed(rita, "?age=30") == ["Cupuaçu"]
    assert listed(rita, f"?collection={place['artigos'].pk}&claimed=mine&age=1") == ["Açaí"]
    assert listed(rita, "?step=1") == []
    # The next step of the three waits for the editors: edu's queue, not rita's.
    review.task_act(user=place["rita"], task=week, action="approve")
    assert listed(rita, "?claimed=mine") == []
    assert listed(client_of(place["edu"]), "?step=1") == ["Açaí"]
    assert listed(client_of(place["edu"]), "?step=0") == []

    chosen = rita.get(f"{QUEUE}?claimed=mine&age=7&collection={place['teses'].pk}",
                      secure=True).content.decode()
    for option in ('value="mine" selected', 'value="7" selected',
                   f'value="{place["teses"].pk}" selected'):
        assert option in chosen, option
    page = rita.get(QUEUE, secure=True).content.decode()
    for column in ("Step", "Held by", "Collection", "Submitter", "Waiting", "Checks"):
        assert f">{column}<" in page
    assert 'aria-sort="descending"><a href="?order=-age">Waiting' in page
    # A value the form does not offer: 400 with its field, and nothing listed.
    for bad in ("?collection=999999", f"?collection={place['outra'].pk}", "?claimed=theirs",
                "?order=-title", "?age=2", "?step=x"):
        refused = rita.get(QUEUE + bad, secure=True)
        assert refused.status_code == 400, bad
        assert 'class="errors" role="alert"' in refused.content.decode()
        assert "Cupuaçu" not in refused.content.decode()


def test_the_queue_is_paged(place, monkeypatch):
    from archive.site import review as pages

    monkeypatch.setattr(pages, "PAGE_SIZE", 2)
    for n, title in enumerate(("Um", "Dois", "Três")):
        submitted(place["alice"], place["teses"], title, days=10 - n)
    rita = client_of(place["rita"])
    assert listed(rita, "?claimed=unclaimed") == ["Um", "Dois"]
    second = rita.get(QUEUE + "?claimed=unclaimed", secure=True).content.decode()
    assert 'href="?claimed=unclaimed&amp;order=age&amp;page=2"' in second
    assert listed(rita, "?claimed=unclaimed&order=age&page=2") == ["Três"]


def test_a_reviewer_of_one_collection_sees_nothing_of_another_and_cannot_act_there(place):
    theirs = submitted(place["alice"], place["outra"], "Outro assunto")
    rita = client_of(place["rita"])
    assert "Outro assunto" not in rita.get(QUEUE, secure=True).content.decode()
    before = state(theirs)
    assert rita.get(f"/review/{theirs.pk}/", secure=True).status_code == 404
    for action in ("claim", "approve", "return", "release"):
        answer = rita.post(f"/review/{theirs.pk}/", {"action": action, "reason": "x",
                                                     "version": "2"}, secure=True)
        assert answer.status_code == 404 and b"Outro assunto" not in answer.content
    assert state(theirs) == before
    # The submitter sees nothing of the queue's pages either: no role, no task.
    alice = client_of(place["alice"])
    assert listed(alice) == []
    assert alice.get(f"/review/{theirs.pk}/", secure=True).status_code == 404
    assert client_of(place["bruno"]).get(f"/review/{theirs.pk}/", secure=True).status_code == 200


def test_anonymous_is_sent_to_log_in(place):
    task = submitted(place["alice"], place["teses"], "Cupuaçu")
    for url in (QUEUE, f"/review/{task.pk}/"):
        answer = Client().get(url, secure=True)
        assert answer.status_code == 302 and "login" in answer["Location"]
        assert "next=" in answer["Location"]
    assert Client().post(f"/review/{task.pk}/", {"action": "claim", "version": "2"},
                         secure=True).status_code == 302
    assert Task.objects.get(pk=task.pk).claimed_by_id is None


def test_claim_return_and_approve_through_the_pages_and_every_refusal_changes_nothing(place):
    task = submitted(place["alice"], place["teses"], "Cupuaçu")
    rita, rui = client_of(place["rita"]), client_of(place["rui"])
    url, version = f"/review/{task.pk}/", task.submission.version
    # Claimed from the queue: back to the queue as it was filtered, with a message.
    back = f"{QUEUE}?claimed=unclaimed"
    assert f'name="back" value="{back}"'.replace("?", "?") in rita.get(
        back, secure=True).content.decode().replace("&amp;", "&")
    claimed = rita.post(url, {"action": "claim", "version": version, "back": back},
                        secure=True, follow=True)
    assert claimed.redirect_chain[-1][0] == back
    assert "You hold this task now." in claimed.content.decode()
    assert Task.objects.get(pk=task.pk).claimed_by == place["rita"]
    # An address elsewhere is no way back: the task's page instead.
    version += 1
    away = rita.post(url, {"action": "unclaim", "version": version,
                           "back": "https://evil.example/"}, secure=True)
    assert away.status_code == 302 and away["Location"] == url
    version += 1
    assert rita.post(url, {"action": "claim", "version": version}, secure=True).status_code == 302
    # The queue's title links keep its filters for the way back.
    listing = rita.get(f"{QUEUE}?claimed=mine&order=title", secure=True).content.decode()
    assert f'href="{url}?back=%2Freview%2F%3Fclaimed%3Dmine%26order%3Dtitle"' in listing
    page = rita.get(url, {"back": f"{QUEUE}?claimed=mine&order=title"}, secure=True)
    assert f'<a href="{QUEUE}?claimed=mine&amp;order=title">' in page.content.decode()
    assert f'name="back" value="{QUEUE}?claimed=mine&amp;order=title"' in page.content.decode()
    # Neither is a script nor another site's address a link back.
    for bad in ("javascript:alert(1)", "https://evil.example/review/", "//evil.example/"):
        page = rita.get(url, {"back": bad}, secure=True).content.decode()
        assert bad not in page and f'<a href="{QUEUE}">' in page
    assert rita.get("/review/99999999999999999999/", secure=True).status_code == 404
    version += 1

    # Refusals: another's task, a return without a reason, a stale page, an unknown action.
    before = state(task)
    for client, data, status, says in (
            (rui, {"action": "approve", "version": version}, 403, "someone else holds"),
            (rui, {"action": "claim", "version": version}, 409, "claimed already"),
            (rita, {"action": "return", "version": version, "reason": "  "}, 400, "reason"),
            (rita, {"action": "approve", "version": version - 1}, 409, "changed meanwhile"),
            (rita, {"action": "approve"}, 400, "version"),
            (rita, {"action": "publish", "version": version}, 400, "not an action"),
            (rita, {"action": "release", "version": version}, 403, "administrator")):
        answer = client.post(url, data, secure=True)
        assert answer.status_code == status, (data, answer.status_code)
        text = answer.content.decode()
        assert 'class="errors" role="alert"' in text and says in text, (data, text[:300])
    assert state(task) == before

    page = rita.get(url, secure=True).content.decode()
    assert "Reason for returning it to the submitter" in page
    assert 'value="approve"' in page and 'value="reassign"' not in page
    returned = rita.post(url, {"action": "return", "version": version,
                               "reason": "Falta o resumo em inglês"}, secure=True)
    assert returned.status_code == 302
    assert Submission.objects.get(pk=task.submission_id).state == "returned"

    # Resubmitted, approved: published, and the history keeps who, when, step and reason.
    submission = review.submit(user=place["alice"], submission=task.submission)
    again = submission.tasks.get(closed__isnull=True)
    url = f"/review/{again.pk}/"
    assert rita.post(url, {"action": "claim", "version": submission.version},
                     secure=True).status_code == 302
    assert rita.post(url, {"action": "approve", "version": submission.version + 1},
                     secure=True).status_code == 302
    assert Submission.objects.get(pk=submission.pk).state == "published"
    page = rita.get(url, secure=True).content.decode()
    history = page[page.index('id="history-title"'):]
    assert history.index("alice submitted") < history.index("rita claimed (review)")
    assert history.index("rita returned to the submitter (review)") < history.index(
        "Falta o resumo em inglês") < history.index("alice resubmitted")
    assert history.index("rita approved (review)") < history.index("rita published")
    assert "this step has ended" in page and 'name="action"' not in page


def test_the_administrator_releases_and_reassigns(place):
    task = submitted(place["alice"], place["teses"], "Cupuaçu")
    review.task_act(user=place["rita"], task=task, action="claim")
    ada = client_of(place["ada"])
    url = f"/review/{task.pk}/"
    page = ada.get(url, secure=True).content.decode()
    assert 'value="release"' in page and 'value="reassign"' in page
    people = re.findall(r'<option value="(\d+)"[^>]*>(\w+)</option>', page)
    assert {name for _pk, name in people} == {"rita", "rui", "ada"}  # never alice, her own
    version = Submission.objects.get(pk=task.submission_id).version
    assert ada.post(url, {"action": "release", "version": version},
                    secure=True).status_code == 302
    assert Task.objects.get(pk=task.pk).claimed_by is None
    before = state(task)
    refused = ada.post(url, {"action": "reassign", "version": version + 1,
                             "assignee": place["alice"].pk}, secure=True)
    assert refused.status_code == 403 and state(task) == before
    for nobody in ("nobody", "9" * 30, ""):
        assert ada.post(url, {"action": "reassign", "version": version + 1,
                              "assignee": nobody}, secure=True).status_code == 400
    assert ada.post(url, {"action": "reassign", "version": version + 1,
                          "assignee": place["rui"].pk}, secure=True).status_code == 302
    assert Task.objects.get(pk=task.pk).claimed_by == place["rui"]
    assert "rui" in ada.get(url, secure=True).content.decode().split('id="history-title"')[1]
    # A reviewer is offered neither.
    page = client_of(place["rita"]).get(url, secure=True).content.decode()
    assert 'value="release"' not in page and 'value="reassign"' not in page


def test_the_task_page_shows_metadata_and_files(place):
    upload = pending.keep(owner=place["alice"], file=make.uploaded("tese.pdf"))
    submission = make.submission(place["alice"], place["teses"], "Cupuaçu",
                                 files=[str(upload.pk)], language="pt-BR",
                                 metadata=[{"field": "dc.creator", "value": "Silva, Alice"},
                                           {"field": "dc.subject", "value": "frutas",
                                            "language": "pt"}])
    submission = review.submit(user=place["alice"], submission=submission)
    task = submission.tasks.get()
    page = client_of(place["rita"]).get(f"/review/{task.pk}/", secure=True)
    text = page.content.decode()
    assert page["Cache-Control"].count("private") == 1 and "no-cache" in page["Cache-Control"]
    for shown in ("Silva, Alice", '<dd lang="pt">frutas</dd>', "tese.pdf", make.LICENCE,
                  "Collection teses", "alice"):
        assert shown in text, shown


def test_the_queue_speaks_portuguese(place):
    submitted(place["alice"], place["teses"], "Cupuaçu", days=3)
    page = client_of(place["rita"]).get(QUEUE, secure=True,
                                        HTTP_ACCEPT_LANGUAGE="pt-BR").content.decode()
    for word in ("Fila de revisão", "Etapa", "Coleção", "Submetedor", "Aguardando",
                 "Assumir"):
        assert word in page, word


@pytest.mark.django_db(transaction=True)
def test_the_queue_in_a_browser_in_portuguese_on_a_phone(place, live_site, browser):
    """A reviewer on a 375 px screen: the queue and the task's page have no axe violation and
    nothing scrolls sideways; she claims from the queue and returns with a reason."""
    from django.conf import settings
    from playwright.sync_api import expect

    task = submitted(place["alice"], place["teses"], "Modelagem da precipitação na Amazônia",
                     days=3)
    submitted(place["beto"], place["artigos"], "Açaí", days=1)
    session = client_of(place["rita"]).cookies[settings.SESSION_COOKIE_NAME].value
    # bypass_csp: axe-core is loaded as an inline script (test_admin_accessibility.py).
    context = browser.new_context(locale="pt-BR", bypass_csp=True,
                                  viewport={"width": 375, "height": 800})
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session,
                          "url": live_site.url}])
    page = context.new_page()
    page.goto(f"{live_site.url}/review/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Fila de revisão")
    expect(page.locator("table.queue tbody tr")).to_have_count(2)

    def fits(page=page) -> None:
        assert make.axe_violations(page) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 375

    fits()
    make.screenshot(page, "review-queue-pt-BR-375")
    page.get_by_label("Responsável").select_option("unclaimed")
    page.get_by_role("button", name="Mostrar").click()
    page.get_by_role("button", name="Assumir Modelagem da precipitação na Amazônia").click()
    expect(page.get_by_role("status").first).to_have_text("Esta tarefa agora é sua.")
    assert "claimed=unclaimed" in page.url
    fits()

    page.goto(f"{live_site.url}/review/{task.pk}/")
    fits()
    make.screenshot(page, "review-task-pt-BR-375")
    page.get_by_role("button", name="Devolver ao submetedor").click()  # required: stays
    assert Submission.objects.get(pk=task.submission_id).state == "in_review"
    page.get_by_label("Motivo para devolvê-la ao submetedor").fill("Falta o resumo.")
    page.get_by_role("button", name="Devolver ao submetedor").click()
    expect(page.get_by_role("status").first).to_have_text(
        "Devolvida ao submetedor, com o seu motivo.")
    expect(page.locator("ol.timeline")).to_contain_text("Falta o resumo.")
    fits()
    assert Submission.objects.get(pk=task.submission_id).state == "returned"
