"""A PREMIS event for every action (issue 38, 1), proven by a test that cannot fall behind.

Every write path is discovered as the review's bypass test discovers them (tests/write_paths.py):
routes, function views, the admin's add and change views and actions, management commands,
Celery tasks, and the places in the source that deposit an item. Each is classified here:
either the event types it records (and the kind of agent that acts: a person, this software,
another Archive), or the reason it records none. A new path nobody classified fails
`test_every_write_path_is_classified`; a path said to record events is run by
`test_each_action_records_its_events_with_its_agent`, which fails when it records none.
"""
from __future__ import annotations

import csv
import io
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from archive.models import (
    Collection,
    CollectionRole,
    CopyJob,
    Item,
    ItemFile,
    PremisAgent,
    PremisEvent,
    Submission,
    Task,
    Workflow,
)
from archive.preservation import bagit, events, jobs
from archive.review import services as review
from tests import factories as make
from tests import write_paths
from tests.fake_archive import FakeArchive, forget, publish

pytestmark = pytest.mark.django_db

T = PremisEvent.Type
PERSON, SOFTWARE, ARCHIVE = (PremisAgent.Kind.PERSON, PremisAgent.Kind.SOFTWARE,
                             PremisAgent.Kind.ORGANIZATION)


@dataclass(frozen=True)
class Records:
    """A path that records events: their types, who acts, and (for a place in the source)
    the path whose run shows it."""

    types: tuple[str, ...]
    agent: str
    shown_by: tuple[str, str] | None = None


READS = "reads only"
ACCOUNTS = "accounts, sessions or sign-ins: no item, no file"
TREE = "the tree, profiles, vocabularies, the registry or roles: no item changes"
LINKS = ("secret links and requests for a copy open one reader a file; the item's access "
         "level stays (a librarian's change of it is a policy assignment)")
DRAFTS = "a draft or a pending upload: no item until it is published (accession)"
NOT_ITEMS = "no item's content, metadata, access or custody changes"

ROUTES: dict[str, Records | str] = {
    "api/items/": Records((T.INGESTION,), PERSON),
    "api/items/<item_ibi:ibi>/files": Records((T.INGESTION,), PERSON),
    "api/items/<item_ibi:ibi>": Records((T.METADATA_MODIFICATION, T.POLICY_ASSIGNMENT,
                                         T.DELETION), PERSON),
    "api/items/<item_ibi:ibi>/handover": Records((T.TRANSFER,), PERSON),
    "api/items/<item_ibi:ibi>/copies": Records((T.REPLICATION,), ARCHIVE),
    "api/items/<item_ibi:ibi>/links": ("links to other resources (issue 25) are no part of "
                                       "the item's preserved content or metadata"),
    "api/items/<item_ibi:ibi>/links/<int:pk>": "links to other resources, as above",
    "api/communities/": TREE, "api/communities/<str:slug>": TREE,
    "api/collections/": TREE, "api/collections/<str:slug>": TREE,
    "api/uploads/": DRAFTS, "api/uploads/<str:id>": DRAFTS,
    "api/submissions/": DRAFTS, "api/submissions/<any_id:pk>": DRAFTS,
    # A submission in a collection without review is published at once.
    "api/submissions/<any_id:pk>/submit": Records((T.INGESTION, T.ACCESSION), PERSON),
    "api/submissions/<any_id:pk>/withdraw": DRAFTS,
    **{f"api/tasks/<any_id:pk>/{action}": DRAFTS
       for action in ("claim", "unclaim", "return", "release", "reassign")},
    "api/tasks/<any_id:pk>/approve": Records((T.INGESTION, T.ACCESSION), PERSON),
    **{route: ACCOUNTS for route in (
        "accounts/login/", "accounts/logout/", "accounts/password/reset/",
        "accounts/password/reset/<uidb64>/<token>/", "accounts/password/change/")},
}
FUNCTION_VIEWS: dict[str, Records | str] = {
    **dict.fromkeys((
        "archive.urls.dispatch", "archive.site.lockss.index", "archive.site.lockss.manifest",
        "archive.api.views.counter.members", "archive.api.views.counter.report",
        "archive.api.views.counter.report_list", "archive.api.views.counter.status",
        "archive.site.usage.summary",
        "archive.site.views.home", "archive.site.views.search",
        "archive.site.communities.community_page", "archive.site.communities.collection_page",
        "archive.site.communities.wrapped", "archive.harvest.oai.endpoint",
        "archive.site.indexing.robots_txt", "archive.site.indexing.favicon",
        "archive.site.indexing.sitemap_index", "archive.site.indexing.sitemap_pages",
        "archive.site.indexing.sitemap_items", "archive.site.legacy.handle",
        "archive.site.legacy.bitstream_by_handle", "archive.site.legacy.bitstream_by_sequence",
        "archive.site.legacy.oai", "archive.site.legacy.dspace_item",
        "archive.site.legacy.bitstream", "archive.site.views.item_files",
        "archive.site.views.item_metadata", "archive.site.metadata_formats.item_metadata_format",
        "archive.site.views.item_oai_dc", "archive.site.linksets.linkset",
        "archive.site.linksets.linkset_json", "archive.site.review.queue",
        "archive.site.views.item_page", "archive.site.downloads.download",
        "archive.resolver.views.memento.timemap", "archive.resolver.views.memento.timegate",
        "archive.resolver.views.inspection.inspect", "archive.site.thumbnails.thumbnail"),
        READS),
    "archive.site.access.item_request": LINKS,
    **dict.fromkeys((
        "django.views.i18n.set_language", "archive.site.accounts.account",
        "archive.site.accounts.signup", "archive.site.accounts.verify_sent",
        "archive.site.accounts.verify", "archive.site.accounts.unlink",
        "archive.site.accounts.personal_data", "archive.site.orcid.login",
        "archive.site.orcid.callback", "archive.site.orcid.connect",
        "archive.site.saml.discovery", "archive.site.saml.metadata", "archive.site.saml.login",
        "archive.site.saml.acs", "archive.site.saml.logout", "archive.site.saml.sls"), ACCOUNTS),
    # Asking for one's erasure: the librarians erase (Account.erase below).
    "archive.site.accounts.erasure": ACCOUNTS,
    "archive.site.review.task_page": Records((T.INGESTION, T.ACCESSION), PERSON),
    "archive.site.submit.submissions": DRAFTS,
    "archive.site.submit.submission": Records((T.INGESTION, T.ACCESSION), PERSON),
}
ADMIN: dict[str, tuple[Records | str, Records | str, dict[str, Records | str]]] = {
    "Item": (Records((T.INGESTION,), PERSON),
             Records((T.METADATA_MODIFICATION, T.POLICY_ASSIGNMENT, T.INGESTION), PERSON), {
                 "move_to_collection": Records((T.METADATA_MODIFICATION,), PERSON),
                 "map_into_collection": Records((T.METADATA_MODIFICATION,), PERSON),
                 "refresh_copies": Records((T.REPLICATION,), ARCHIVE),
                 "export_csv": READS, "export_bibtex": READS,
                 "change_access": Records((T.POLICY_ASSIGNMENT,), PERSON),
                 "delete_selected": Records((T.DELETION,), PERSON)}),
    # The copy page (admin/archive/item/copy/) asks for a job: the Copy received.
    "CopyJob": (Records((T.INGESTION,), ARCHIVE), READS, {}),
    "ItemFile": (READS, READS, {"check_now": Records((T.FIXITY_CHECK,), PERSON)}),
    "AccessRequest": (LINKS, LINKS, {}), "AccessLink": (LINKS, LINKS, {"revoke": LINKS}),
    "AccessRead": (READS, READS, {}),
    **{name: (TREE, TREE, {}) for name in (
        "Community", "Collection", "SubmissionProfile", "Vocabulary", "VocabularyTerm",
        "MetadataSchema", "MetadataField", "CollectionRole", "Workflow")},
    "MintingState": (READS, READS, {}),
    "RegisteredArchive": (NOT_ITEMS, NOT_ITEMS, {"switch_off": NOT_ITEMS}),
    # An erased account's agent is renamed, its events kept (test_an_erased_account_...).
    "Account": (ACCOUNTS, ACCOUNTS, {"disable": ACCOUNTS, "enable": ACCOUNTS,
                                     "erase": ACCOUNTS}),
    **{name: (ACCOUNTS, ACCOUNTS, {}) for name in (
        "Identity", "Group", "User", "TokenProxy", "AccessLog", "AccessFailureLog")},
    "AccessAttempt": (ACCOUNTS, ACCOUNTS, {"cleanup_expired_attempts": ACCOUNTS}),
    "Submission": (READS, READS, {}),
    "FixityCheck": (READS, READS, {}),  # the checks' history: read only
    # Usage (issue 39): counts, the COUNTER API's customers and keys, never an item.
    "UsageMonth": (READS, READS, {}),
    "CounterCustomer": (NOT_ITEMS, NOT_ITEMS, {"issue_key": NOT_ITEMS}),
    "CounterApiKey": (NOT_ITEMS, NOT_ITEMS, {"revoke": NOT_ITEMS}),
    "FileExtraction": (READS, READS, {"extract_again": (
        "a file's text and thumbnail are derivatives for search, not the preserved file")}),
}
COMMANDS: dict[str, Records | str] = {
    "importitems": Records((T.INGESTION,), SOFTWARE),
    "importsaf": Records((T.INGESTION,), SOFTWARE),
    "harvest": Records((T.INGESTION,), SOFTWARE),
    "copyitem": Records((T.INGESTION,), ARCHIVE),
    "migrateitem": Records((T.TRANSFER,), ARCHIVE),
    "rebuild": Records((T.INGESTION,), SOFTWARE),
    "publishapproved": Records((T.INGESTION, T.ACCESSION), SOFTWARE),
    "liftembargoes": Records((T.POLICY_ASSIGNMENT,), SOFTWARE),
    "fixity": Records((T.FIXITY_CHECK,), SOFTWARE),
    "identifyformats": Records((T.FORMAT_IDENTIFICATION,), SOFTWARE),
    "fsck": ("removes only what no file row claims (orphans, leftovers of a killed write): "
             "nothing the Archive holds"),
    "reviewdigest": NOT_ITEMS, "reindex": NOT_ITEMS, "createlibrarian": ACCOUNTS,
    "createpeer": ACCOUNTS, "exportbags": "writes bags out (premis.xml among them): reads",
    "exportsaf": READS, "federation": NOT_ITEMS, "ibi": READS, "registerarchive": NOT_ITEMS,
    "switchoff": NOT_ITEMS, "switchon": NOT_ITEMS, "refreshsamlmetadata": ACCOUNTS,
    "extracttext": "a file's text: a derivative for search", "thumbnails": "a derivative",
    "flush": "Django's: empties the database, the suite's maintenance",
    "counter_rollup": "usage counts rolled up into months: counts, never an item",
    "ocfl": ("export writes an OCFL root outside (reads); rebuild puts a fresh instance back "
             "from one, each item with the events it had there (item.json), no new one"),
}
TASKS: dict[str, Records | str] = {
    "archive.tasks.copy_item": Records((T.INGESTION,), ARCHIVE),
    "archive.tasks.run_copy_job": Records((T.INGESTION,), ARCHIVE),
    "archive.tasks.resume_copy_jobs": Records((T.INGESTION,), ARCHIVE),
    "archive.tasks.refresh_copies": Records((T.REPLICATION,), ARCHIVE),
    "archive.tasks.check_fixity": Records((T.FIXITY_CHECK,), SOFTWARE),
    "archive.tasks.lift_embargoes": Records((T.POLICY_ASSIGNMENT,), SOFTWARE),
    "archive.tasks.publish_approved": Records((T.INGESTION, T.ACCESSION), SOFTWARE),
    "archive.tasks.identify_files": Records((T.FORMAT_IDENTIFICATION,), SOFTWARE),
    "archive.tasks.identify_due": Records((T.FORMAT_IDENTIFICATION,), SOFTWARE),
    **dict.fromkeys((
        "archive.tasks.erase_access_requests", "archive.tasks.mail_access_answer",
        "archive.tasks.mail_access_answers", "archive.tasks.mail_request_notices",
        "archive.tasks.send_acknowledgment", "archive.tasks.send_acknowledgments",
        "archive.tasks.mail_account_mails", "archive.tasks.refresh_saml_metadata",
        "archive.tasks.mail_review_notices", "archive.tasks.review_digest"), NOT_ITEMS),
    "archive.tasks.sweep_uploads": DRAFTS,
    "archive.tasks.roll_up_months": "usage counts rolled up into months: counts, never an item",
    "archive.tasks.check_submission": ("checks a submission, no item yet: its virus scans "
                                       "become the item's events when it is published"),
    "archive.tasks.check_submissions": "as check_submission",
    "archive.tasks.extract_files": "a file's text: a derivative for search",
    "archive.tasks.extract_due": "as extract_files",
}
# The places in the source that deposit or build an item, and the path whose run shows them.
SOURCES: dict[tuple[str, str], Records | str] = {
    ("archive/admin/forms.py", "item_deposit"): Records(
        (T.INGESTION,), PERSON, ("admin add", "Item")),
    ("archive/api/views/items.py", "item_deposit"): Records(
        (T.INGESTION,), PERSON, ("route", "api/items/")),
    ("archive/management/commands/importitems.py", "item_deposit"): Records(
        (T.INGESTION,), SOFTWARE, ("command", "importitems")),
    ("archive/dspace/services.py", "item_deposit"): Records(
        (T.INGESTION,), SOFTWARE, ("command", "importsaf")),
    ("archive/dspace/imports.py", "deposit"): Records(
        (T.INGESTION,), SOFTWARE, ("command", "importsaf")),
    ("archive/dspace/harvest.py", "deposit"): Records(
        (T.INGESTION,), SOFTWARE, ("command", "harvest")),
    ("archive/review/services.py", "item_deposit"): Records(
        (T.INGESTION, T.ACCESSION), PERSON, ("route", "api/tasks/<any_id:pk>/approve")),
    ("archive/preservation/copies.py", "Item"): Records(
        (T.INGESTION,), ARCHIVE, ("command", "copyitem")),
    ("archive/preservation/bagit.py", "Item.objects.create"): Records(
        (T.INGESTION,), SOFTWARE, ("command", "rebuild")),
    ("archive/deposit/services.py", "Item"): Records(
        (T.INGESTION,), PERSON, ("route", "api/items/")),
    ("archive/deposit/services.py", "item_deposit"): "item_deposit_check's: writes nothing",
    ("archive/deposit/services.py", "Item.objects.create"): (
        "the archive service item, made at migrate: no deposited content"),
    ("archive/archive_service/relations.py", "Item"): "unsaved, to compute a name",
}


def _classified() -> dict[tuple[str, str], Records | str]:
    paths: dict[tuple[str, str], Records | str] = {}
    paths |= {("route", r): c for r, c in ROUTES.items()}
    paths |= {("view", v): c for v, c in FUNCTION_VIEWS.items()}
    for model, (add, change, actions) in ADMIN.items():
        paths[("admin add", model)], paths[("admin change", model)] = add, change
        paths |= {("admin action", f"{model}.{a}"): c for a, c in actions.items()}
    paths |= {("command", c): v for c, v in COMMANDS.items()}
    paths |= {("task", t): v for t, v in TASKS.items()}
    paths |= {("source", f"{f}:{call}"): v for (f, call), v in SOURCES.items()}
    return paths


def _discovered() -> set[tuple[str, str]]:
    found = set()
    for route, view in write_paths.routes().items():
        writes = write_paths.writes(view)
        if writes is None:
            found.add(("view", write_paths.view_name(view)))
        elif writes:
            found.add(("route", route))
    for model, actions in write_paths.admin_models().items():
        found |= {("admin add", model), ("admin change", model)}
        found |= {("admin action", f"{model}.{a}") for a in actions}
    found |= {("command", c) for c in write_paths.commands()}
    found |= {("task", t) for t in write_paths.tasks()}
    found |= {("source", f"{f}:{call}") for f, call in write_paths.source_sites()}
    return found


def test_every_write_path_is_classified():
    """Each path discovered says which events it records, or why none; no classification
    outlives its path; a reason is a sentence, not a placeholder."""
    classified, discovered = _classified(), _discovered()
    assert sorted(discovered - set(classified)) == []
    assert sorted(set(classified) - discovered) == []
    for key, said in classified.items():
        if isinstance(said, Records):
            assert said.types and all(t in T.values for t in said.types), key
            assert said.agent in PremisAgent.Kind.values, key
        else:
            assert len(said) > 8, key
    # Every path said to record events is run below, or shown by one that is.
    recording = {k for k, v in classified.items() if isinstance(v, Records)}
    shown = {k for k in recording if classified[k].shown_by is None}
    assert shown == set(EXERCISES), sorted(shown ^ set(EXERCISES))
    for key in recording - shown:
        assert classified[key].shown_by in shown, key
        assert set(classified[key].types) <= set(classified[classified[key].shown_by].types)


# -- Running each path ------------------------------------------------------------------------

@pytest.fixture
def env(librarian, librarian_api, librarian_client, settings, tmp_path, monkeypatch,
        eager_tasks):  # what a path nudges a worker to do runs in process, a broker set or not
    peer = FakeArchive()
    settings.IBI_PEER_ARCHIVES = (peer.base_url,)
    settings.ARCHIVE_ADDRESS = "127.0.0.1:9"
    settings.IBI_IDENTIFY_FORMATS = True
    monkeypatch.setenv("IBI_PEER_TOKEN", "right-token")
    yield SimpleNamespace(librarian=librarian, api=librarian_api, client=librarian_client,
                          tmp=tmp_path, peer=peer, settings=settings)
    peer.close()


def _run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def _ibi_of(response) -> str:
    assert response.status_code in (200, 201, 302), response.content[:500]
    return response.json()["ibi"]


def _copy_source(env) -> dict:
    return make.held_elsewhere(env.peer, ("report.pdf", b"%PDF-1.7 report"))


def _a_copy(env) -> str:
    """A Copy held here, then changed at its source, so that a refresh replicates it."""
    record = _copy_source(env)
    from archive.preservation import copies

    copies.copy_item(ibi=record["ibi"], source=env.peer.base_url)
    record["title"] = "Report, second version"
    record["timestamp"] = (timezone.now() + timedelta(minutes=1)).strftime(
        "%Y-%m-%dT%H:%M:%SZ")
    return record["ibi"]


def _held_at_peer(env) -> dict:
    original = make.item(("report.pdf", b"%PDF report"), title="Report")
    record, files = publish(Client(), original)
    forget(original)
    return env.peer.add(record, files)


def _submitter(user, collection: Collection) -> Collection:
    CollectionRole.objects.create(collection=collection, role="submitter", user=user)
    return collection


def _in_review(env, publish_on=None) -> tuple[Submission, Task, User]:
    theses = _submitter(env.librarian, make.collection("teses", make.community("ppg")))
    make.reviewed(theses, publish_on=publish_on, reviewer="Reviewers")
    rita = make.person("rita", "Reviewers")
    draft = make.submission(env.librarian, theses)
    review.submit(user=env.librarian, submission=draft)
    task = Task.objects.get(submission=draft, closed__isnull=True)
    review.task_act(user=rita, task=task, action="claim")
    return draft, task, rita


def _published(submission: Submission) -> str:
    submission.refresh_from_db()
    assert submission.item is not None, submission.state
    return submission.item.ibi


def _approved_later(env) -> tuple[Submission, str]:
    later = timezone.localdate() + timedelta(days=10)
    draft, task, rita = _in_review(env, publish_on=later)
    review.task_act(user=rita, task=task, action="approve")
    return draft, later.isoformat()


def _embargo_over(env) -> str:
    item = make.item(title="Embargada")
    Item.objects.filter(pk=item.pk).update(access_rights="embargoed",
                                           embargo_until=timezone.localdate())
    return item.ibi


def _importitems(env) -> str:
    (env.tmp / "a.pdf").write_bytes(b"%PDF a")
    source = env.tmp / "items.csv"
    with source.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "title", "files"])
        writer.writeheader()
        writer.writerow({"id": "A-1", "title": "Imagens", "files": "a.pdf"})
    _run("importitems", str(source), "--journal", str(env.tmp / "journal"))
    return Item.objects.get(title="Imagens").ibi


def _importsaf(env) -> str:
    from tests.test_importsaf import SAF

    export = env.tmp / "export"
    shutil.copytree(SAF, export)
    theses = next(iter(make.dspace_collections().values()))
    _run("importsaf", str(export), "--collection", theses.slug, "--report",
         str(env.tmp / "r.csv"))
    return ""


def _harvest(env) -> str:
    from tests.servers import ScriptedOai

    make.oai_collections()
    with ScriptedOai() as oai:
        _run("harvest", oai.base, "--report", str(env.tmp / "h.csv"))
    return ""


def _rebuilt(env) -> str:
    item = make.item(("a.pdf", b"%PDF a"), title="Num saco")
    bagit.export_item(item, env.tmp / "bags")
    forget(item)
    _run("rebuild", str(env.tmp / "bags"))
    return item.ibi


def _admin_change(env) -> str:
    item = make.item(title="Antes")
    saved = env.client.post(f"/admin/archive/item/{item.pk}/change/", {
        "title": "Depois", "language": "pt-BR", "transferable": "on",
        "collection": item.collection_id, "access_rights": "restricted",
        "access_reason": "Patente", "upload": [make.uploaded("mais.pdf")]}, secure=True)
    assert saved.status_code == 302, saved.context["adminform"].form.errors
    return item.ibi


def _api_change(env) -> str:
    item = make.item(title="Antes")
    for change in ({"title": "Depois"}, {"access": {"rights": "restricted",
                                                    "reason": "Patente"}}):
        answer = env.api.patch(f"/api/items/{item.ibi}", change, format="json", secure=True)
        assert answer.status_code == 200, answer.content
    assert env.api.delete(f"/api/items/{item.ibi}", secure=True).status_code == 200
    return item.ibi


def _list_action(env, action: str, **fields) -> str:
    item = make.item(title="Na lista")
    done = env.client.post("/admin/archive/item/", {
        "action": action, "post": "yes", "_selected_action": [item.pk], **fields},
        secure=True)
    assert done.status_code in (200, 302)
    return item.ibi


def _hand_over(env) -> str:
    original = make.item(("report.pdf", b"%PDF report"), title="Report")
    record, files = publish(Client(), original)
    record.update(state="Copy", source_archive="http://127.0.0.1:9")
    env.peer.add(record, files)
    answer = env.api.post(f"/api/items/{original.ibi}/handover",
                          {"target": env.peer.base_url}, format="json", secure=True)
    assert answer.status_code == 200, answer.content
    return original.ibi


def _copy_told(env) -> str:
    """Another Archive tells of its Copy, with the account it copies with (createpeer)."""
    account = User.objects.create_user("archive-b")
    account.user_permissions.add(Permission.objects.get(codename="view_item"))
    item = make.item()
    answer = make.token_client(account).post(
        f"/api/items/{item.ibi}/copies", {"archive": "sid.inpe.br/archive-b/2026/01.01.00.00"},
        format="json", secure=True)
    assert answer.status_code == 201, answer.content
    return item.ibi


def _submit_unreviewed(env) -> str:
    open_one = _submitter(env.librarian, make.collection("aberta", make.community("ppg")))
    draft = make.submission(env.librarian, open_one)
    answer = env.api.post(f"/api/submissions/{draft.pk}/submit", {"version": draft.version},
                          format="json", secure=True)
    assert answer.status_code == 200, answer.content
    return _published(draft)


def _submit_page(env) -> str:
    open_one = _submitter(env.librarian, make.collection("aberta", make.community("ppg")))
    Collection.objects.filter(pk=open_one.pk).update(deposit_licence=make.LICENCE)
    draft = make.submission(env.librarian, open_one)
    sent = env.client.post(f"/submit/{draft.pk}/", {
        "version": draft.version, "title": draft.title, "action": "submit",
        "accept_licence": "on", "upload": make.uploaded("tese.pdf")}, secure=True)
    assert sent.status_code == 302, sent.content[:300]
    return _published(draft)


def _approve_api(env) -> str:
    draft, task, rita = _in_review(env)
    answer = make.token_client(rita).post(f"/api/tasks/{task.pk}/approve", {},
                                          format="json", secure=True)
    assert answer.status_code == 200, answer.content
    return _published(draft)


def _approve_page(env) -> str:
    draft, task, rita = _in_review(env)
    page = Client()
    page.force_login(rita)
    task.refresh_from_db()
    draft.refresh_from_db()
    done = page.post(f"/review/{task.pk}/", {"action": "approve",
                                             "version": draft.version}, secure=True)
    assert done.status_code in (200, 302)
    return _published(draft)


def _run_copy_job(env) -> str:
    from archive.preservation import tasks

    record = _copy_source(env)
    job = jobs.request(ibi=record["ibi"], source=env.peer.base_url)
    tasks.run_copy_job(job.pk)
    return record["ibi"]


def _resume_copy_jobs(env) -> str:
    from archive.preservation import tasks

    record = _copy_source(env)
    CopyJob.objects.create(ibi=record["ibi"], source=env.peer.base_url,
                           due=timezone.now() - timedelta(days=1))  # its nudge lost
    tasks.resume_copy_jobs()
    return record["ibi"]


def _superuser(env) -> Client:
    """The files' fixity list is the administrators' (archive.view_itemfile)."""
    client = Client()
    client.force_login(User.objects.create_superuser("root", password="x"))
    return client


def _task(name: str, *args) -> Callable:
    from ibirepo.celery import app

    app.loader.import_default_modules()
    return app.tasks[name](*args)


def _identify_files(env) -> str:
    item = make.item(("a.pdf", make.pdf("PREMIS")))
    _task("archive.tasks.identify_files", *ItemFile.objects.filter(
        item=item).values_list("pk", flat=True))
    return item.ibi


EXERCISES: dict[tuple[str, str], Callable] = {
    ("route", "api/items/"): lambda env: _ibi_of(make.posted(env.api, title="Pela API")),
    ("route", "api/items/<item_ibi:ibi>/files"): lambda env: (
        lambda item: (env.api.post(f"/api/items/{item.ibi}/files",
                                   {"files": [make.uploaded(("b.txt", b"b"))]},
                                   format="multipart", secure=True), item.ibi)[1])(make.item()),
    ("route", "api/items/<item_ibi:ibi>"): _api_change,
    ("route", "api/items/<item_ibi:ibi>/handover"): _hand_over,
    ("route", "api/items/<item_ibi:ibi>/copies"): _copy_told,
    ("route", "api/submissions/<any_id:pk>/submit"): _submit_unreviewed,
    ("route", "api/tasks/<any_id:pk>/approve"): _approve_api,
    ("view", "archive.site.review.task_page"): _approve_page,
    ("view", "archive.site.submit.submission"): _submit_page,
    ("admin add", "Item"): lambda env: (
        make.admin_deposit(env.client, title="Pelo admin"),
        Item.objects.get(title="Pelo admin").ibi)[1],
    ("admin change", "Item"): _admin_change,
    ("admin action", "Item.move_to_collection"): lambda env: _list_action(
        env, "move_to_collection",
        collection=make.collection("outra", make.community("ppg")).pk),
    ("admin action", "Item.map_into_collection"): lambda env: _list_action(
        env, "map_into_collection",
        collection=make.collection("outra", make.community("ppg")).pk),
    ("admin action", "Item.change_access"): lambda env: _list_action(
        env, "change_access", access_rights="restricted", reason="Patente"),
    ("admin action", "Item.delete_selected"): lambda env: _list_action(
        env, "delete_selected", reason="Duplicada"),
    ("admin action", "Item.refresh_copies"): lambda env: (
        lambda ibi: (env.client.post("/admin/archive/item/", {
            "action": "refresh_copies", "_selected_action": [Item.objects.get(ibi=ibi).pk]},
            secure=True), ibi)[1])(_a_copy(env)),
    ("admin add", "CopyJob"): lambda env: (
        lambda record: (env.client.post("/admin/archive/item/copy/", {
            "ibi": record["ibi"], "source": env.peer.base_url}, secure=True),
            record["ibi"])[1])(_copy_source(env)),
    ("admin action", "ItemFile.check_now"): lambda env: (
        lambda item: (_superuser(env).post("/admin/archive/itemfile/", {
            "action": "check_now", "_selected_action": list(
                ItemFile.objects.filter(item=item).values_list("pk", flat=True))},
            secure=True), item.ibi)[1])(make.item()),
    ("command", "importitems"): _importitems,
    ("command", "importsaf"): _importsaf,
    ("command", "harvest"): _harvest,
    ("command", "copyitem"): lambda env: (
        lambda record: (_run("copyitem", record["ibi"], "--from", env.peer.base_url),
                        record["ibi"])[1])(_copy_source(env)),
    ("command", "migrateitem"): lambda env: (
        lambda record: (_run("migrateitem", record["ibi"], "--from", env.peer.base_url),
                        record["ibi"])[1])(_held_at_peer(env)),
    ("command", "rebuild"): _rebuilt,
    ("command", "publishapproved"): lambda env: (
        lambda approved: (_run("publishapproved", "--today", approved[1]),
                          _published(approved[0]))[1])(_approved_later(env)),
    ("command", "liftembargoes"): lambda env: (
        lambda ibi: (_run("liftembargoes"), ibi)[1])(_embargo_over(env)),
    ("command", "fixity"): lambda env: (
        lambda item: (_run("fixity", "--all"), item.ibi)[1])(make.item()),
    ("command", "identifyformats"): lambda env: (
        lambda item: (_run("identifyformats", item.ibi), item.ibi)[1])(make.item()),
    ("task", "archive.tasks.copy_item"): lambda env: (
        lambda record: (_task("archive.tasks.copy_item", record["ibi"], env.peer.base_url),
                        record["ibi"])[1])(_copy_source(env)),
    ("task", "archive.tasks.run_copy_job"): _run_copy_job,
    ("task", "archive.tasks.resume_copy_jobs"): _resume_copy_jobs,
    ("task", "archive.tasks.refresh_copies"): lambda env: (
        lambda ibi: (_task("archive.tasks.refresh_copies"), ibi)[1])(_a_copy(env)),
    ("task", "archive.tasks.check_fixity"): lambda env: (
        lambda item: (_task("archive.tasks.check_fixity"), item.ibi)[1])(make.item()),
    ("task", "archive.tasks.lift_embargoes"): lambda env: (
        lambda ibi: (_task("archive.tasks.lift_embargoes"), ibi)[1])(_embargo_over(env)),
    ("task", "archive.tasks.publish_approved"): lambda env: (
        lambda approved: (Workflow.objects.filter(collection=approved[0].collection).update(
            publish_on=timezone.localdate()),
            _task("archive.tasks.publish_approved"), _published(approved[0]))[2])(
        _approved_later(env)),
    ("task", "archive.tasks.identify_files"): _identify_files,
    ("task", "archive.tasks.identify_due"): lambda env: (
        lambda item: (_task("archive.tasks.identify_due"), item.ibi)[1])(make.item()),
}


@pytest.mark.parametrize("path", sorted(EXERCISES), ids=lambda p: f"{p[0]}:{p[1]}")
def test_each_action_records_its_events_with_its_agent(env, path):
    """The path run as its users run it: every event type it is said to record appears,
    in the kind of agent said (the person signed in, this software, the other Archive)."""
    expected = _classified()[path]
    before = PremisEvent.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    ibi = EXERCISES[path](env)
    recorded = PremisEvent.objects.filter(pk__gt=before).select_related("agent")
    if ibi:
        recorded = recorded.filter(ibi=ibi)
    found = {(e.type, e.agent.kind) for e in recorded}
    for kind in expected.types:
        assert (kind, expected.agent) in found, (kind, expected.agent, sorted(found))
    if expected.agent == PERSON:
        people = {e.agent.identifier for e in recorded if e.agent.kind == PERSON}
        assert people <= {str(u.pk) for u in User.objects.all()} and people, people


def test_an_event_is_in_the_transaction_of_its_action():
    """A deposit that fails after its rows leaves no event; one that succeeds, its events."""
    before = PremisEvent.objects.count()

    def fail(item):
        raise RuntimeError("after the rows")

    with pytest.raises(RuntimeError):
        make.item(on_saved=fail)
    assert PremisEvent.objects.count() == before
    made = make.item(("a.pdf", b"%PDF a"), ("b.txt", b"b"))
    kinds = sorted((e.type, e.file) for e in events.of_item(made.ibi))
    assert kinds == [("ingestion", ""), ("ingestion", "a.pdf"), ("ingestion", "b.txt")]


def test_an_erased_account_keeps_its_events_under_a_renamed_agent(librarian_api, librarian):
    from archive.accounts import services as accounts
    from archive.models import Account

    ibi = _ibi_of(make.posted(librarian_api, title="Dela"))
    agent = PremisAgent.objects.get(kind=PERSON, identifier=str(librarian.pk))
    assert agent.name == "librarian"
    count = PremisEvent.objects.filter(agent=agent).count()
    account = Account.objects.get_or_create(user=librarian)[0]
    accounts.erase(account=account)
    agent.refresh_from_db()
    assert agent.name == f"erased account {librarian.pk}"
    assert PremisEvent.objects.filter(agent=agent, ibi=ibi).count() == count > 0
    assert not PremisAgent.objects.filter(name="librarian").exists()


def test_the_virus_scans_before_review_become_the_items_events(settings, tmp_path, librarian):
    """The scans ran on the submission's files before its IBI existed: at publication each
    file's scan is its event, at the time it ran, with its outcome."""
    from archive.review import checking

    settings.IBI_CLAMAV_DB = str(make.clamav_database(tmp_path / "clamav", b"no such file\n"))
    theses = _submitter(librarian, make.collection("teses", make.community("ppg")))
    workflow = make.reviewed(theses, reviewer="Reviewers")
    workflow.blocking_checks = []
    workflow.save()
    rita = make.person("rita", "Reviewers")
    upload = make.pending_upload(librarian, ("tese.pdf", make.pdf("Tese")))
    draft = make.submission(librarian, theses, files=[str(upload.pk)])
    review.submit(user=librarian, submission=draft)
    draft.refresh_from_db()
    checking.run(draft.pk)
    task = Task.objects.get(submission=draft, closed__isnull=True)
    review.task_act(user=rita, task=task, action="claim")
    review.task_act(user=rita, task=task, action="approve")
    ibi = _published(draft)
    scans = [e for e in events.of_item(ibi) if e.type == T.VIRUS_CHECK]
    assert [(e.file, e.outcome, e.agent.kind) for e in scans] == [
        ("tese.pdf", "success", SOFTWARE)]
    scanned = draft.checks.get(name="virus")
    assert scans[0].at == scanned.at and "no virus found" in scans[0].outcome_detail
    accession = [e for e in events.of_item(ibi) if e.type == T.ACCESSION]
    assert [(e.agent.kind, e.agent.identifier) for e in accession] == [(PERSON, str(rita.pk))]


def test_a_failed_fixity_check_is_an_event_with_the_digest(settings):
    from django.core.files.storage import default_storage

    from archive.deposit import storage
    from archive.preservation import fixity

    item = make.item(("a.pdf", b"%PDF a"))
    row = item.files.get()
    with default_storage.open(storage.file_key(item.ibi, "a.pdf"), "wb") as f:
        f.write(b"%PDF changed")
    findings = list(fixity.check())
    assert [f.ok for f in findings if item.ibi in f.key] == [False]
    checked = [e for e in events.of_item(item.ibi) if e.type == T.FIXITY_CHECK]
    assert [(e.file, e.outcome, e.agent.kind) for e in checked] == [
        ("a.pdf", "failure", SOFTWARE)]
    assert row.sha256 in checked[0].detail and "changed" in checked[0].outcome_detail


def test_unchanged_saves_record_nothing(librarian_api):
    """Saving what is already there is no modification: no event."""
    item = make.item(title="Igual")
    before = PremisEvent.objects.count()
    answer = librarian_api.patch(f"/api/items/{item.ibi}", {"title": "Igual"}, format="json",
                                 secure=True)
    assert answer.status_code == 200
    assert PremisEvent.objects.count() == before
