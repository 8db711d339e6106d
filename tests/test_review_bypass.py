"""No way around the review (issue 35), proven by a test that cannot fall behind.

Every write path is discovered, not listed by hand: the URL routes (`get_resolver()`), the
admin's models with their add and change views and their actions (`admin.site`), the app's
management commands (`get_commands()`), the Celery tasks (the app's registry), and, in the
source, every place that deposits an item (`item_deposit(`, dspace's `deposit(`) or builds one
(`Item(`, `Item.objects.create(`). Each must be classified below; a new one that is not fails
`test_every_write_path_is_classified` until someone says what it does to a reviewed collection.

The classes (docs/librarians/workflow.md says the same to librarians):

- GATED: deposits new content here (an item, a new edition, a translation) through
  `item_deposit` as new: refused (403, a form error, a failed row) in a reviewed collection,
  or for an item of one, whoever asks — a librarian, a superuser;
- REVIEW: the review's own routes; an item is published only by an approval
  (tests/test_review_api.py, tests/test_review_states.py);
- IMPORT: content published elsewhere before (importitems, importsaf, harvest): refused like
  GATED unless the librarian says `--published-elsewhere`;
- COPY: another Archive's Original held as a Copy (RTC-11 §5.2): its IBI is the Original's,
  none is minted here, it is never an Original of this Archive;
- RESTORE: this Archive's own items put back (bags, a hand-over from their former Archive):
  published before, their IBIs kept;
- CHANGE: changes an item already published (metadata, files, access, place, tombstone);
  creates no item, edition or translation (a review of changes is a later slice);
- NONE: writes no item (uploads waiting, links, requests for a copy, the tree, the registry,
  accounts, settings, counters, mail) or writes nothing at all.

Each class is then tried against a reviewed collection below.
"""
from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client
from rest_framework.test import APIClient

from archive.deposit import pending
from archive.dspace import services as dspace
from archive.models import (
    Collection,
    CollectionRole,
    Item,
    PendingUpload,
    Provenance,
    Submission,
    Task,
)
from archive.preservation import copies
from archive.refusals import Forbidden
from tests import factories as make
from tests import write_paths
from tests.fake_archive import FakeArchive

pytestmark = pytest.mark.django_db

ROOT = write_paths.ROOT
GATED, REVIEW, IMPORT, COPY = "gated", "review", "import", "copy"
RESTORE, CHANGE, NONE = "restore", "change", "none"

# Routes whose view takes a write (POST, PUT, PATCH, DELETE), and every function view (which
# may): route → class. Class-based views without a write method are read only by themselves.
ROUTES = {
    "api/items/": GATED,  # a deposit, a new edition, a translation, tus uploads finalised
    "api/items/<item_ibi:ibi>/files": CHANGE,
    "api/items/<item_ibi:ibi>/handover": NONE,  # gives the Original away: it becomes a Copy
    "api/items/<item_ibi:ibi>/copies": NONE,  # another Archive's Copy told: an event only
    "api/items/<item_ibi:ibi>/links": NONE,
    "api/items/<item_ibi:ibi>/links/<int:pk>": NONE,
    "api/items/<item_ibi:ibi>": CHANGE,
    "api/communities/": NONE,
    "api/communities/<str:slug>": NONE,
    "api/collections/": NONE,
    "api/collections/<str:slug>": NONE,
    "api/uploads/": NONE,  # bytes waiting: an item only through api/items/ (GATED)
    "api/uploads/<str:id>": NONE,
    "api/submissions/": REVIEW,
    "api/submissions/<any_id:pk>": REVIEW,
    "api/submissions/<any_id:pk>/submit": REVIEW,
    "api/submissions/<any_id:pk>/withdraw": REVIEW,
    **{f"api/tasks/<any_id:pk>/{action}": REVIEW
       for action in ("claim", "unclaim", "approve", "return", "release", "reassign")},
    # Accounts (issue 35, 1): people, passwords and mails, never an item.
    "accounts/login/": NONE, "accounts/logout/": NONE, "accounts/password/reset/": NONE,
    "accounts/password/reset/<uidb64>/<token>/": NONE, "accounts/password/change/": NONE,
}
# Function views, by their callback: all read, but a reader's request for a copy, the
# language chosen and OAI-PMH's POSTed verbs (reads too).
FUNCTION_VIEWS = {
    "archive.urls.dispatch": NONE, "django.views.i18n.set_language": NONE,
    "archive.site.views.home": NONE, "archive.site.views.search": NONE,
    "archive.site.communities.community_page": NONE,
    "archive.site.communities.collection_page": NONE,
    "archive.site.communities.wrapped": NONE, "archive.harvest.oai.endpoint": NONE,
    "archive.site.indexing.robots_txt": NONE, "archive.site.indexing.favicon": NONE,
    "archive.site.indexing.sitemap_index": NONE, "archive.site.indexing.sitemap_pages": NONE,
    "archive.site.indexing.sitemap_items": NONE, "archive.site.legacy.handle": NONE,
    "archive.site.lockss.index": NONE, "archive.site.lockss.manifest": NONE,  # LOCKSS reads
    "archive.site.legacy.bitstream_by_handle": NONE,
    "archive.site.legacy.bitstream_by_sequence": NONE, "archive.site.legacy.oai": NONE,
    "archive.site.legacy.dspace_item": NONE, "archive.site.legacy.bitstream": NONE,
    "archive.site.views.item_files": NONE, "archive.site.views.item_metadata": NONE,
    "archive.site.metadata_formats.item_metadata_format": NONE,
    "archive.site.views.item_oai_dc": NONE, "archive.site.linksets.linkset": NONE,
    "archive.site.linksets.linkset_json": NONE, "archive.site.access.item_request": NONE,
    # The reviewer's queue reads; a task's page acts through the review's services (an
    # approval publishes only what passed its steps).
    "archive.site.review.queue": NONE, "archive.site.review.task_page": REVIEW,
    "archive.site.views.item_page": NONE, "archive.site.downloads.download": NONE,
    "archive.resolver.views.memento.timemap": NONE,
    "archive.resolver.views.memento.timegate": NONE,
    "archive.resolver.views.inspection.inspect": NONE,
    "archive.site.accounts.account": NONE, "archive.site.accounts.signup": NONE,
    "archive.site.accounts.verify_sent": NONE, "archive.site.accounts.verify": NONE,
    # A person's ways in, their data and its erasure (issue 36, 4): accounts, never an item.
    "archive.site.accounts.unlink": NONE, "archive.site.accounts.personal_data": NONE,
    "archive.site.accounts.erasure": NONE,
    # Signing in with ORCID (issue 36, 2): an identity linked, an invitation used; no item.
    "archive.site.orcid.login": NONE, "archive.site.orcid.callback": NONE,
    "archive.site.orcid.connect": NONE,
    # /saml/ (issue 36): signing in and out through an institution; accounts, no items.
    "archive.site.saml.discovery": NONE, "archive.site.saml.metadata": NONE,
    "archive.site.saml.login": NONE, "archive.site.saml.acs": NONE,
    "archive.site.saml.logout": NONE, "archive.site.saml.sls": NONE,
    # /submit/ (issue 35): drafts, submission and withdrawal through the review's services,
    # as /api/submissions/; its files wait as pending uploads.
    "archive.site.submit.submissions": REVIEW, "archive.site.submit.submission": REVIEW,
    # A file's thumbnail (issue 37): GET and HEAD only.
    "archive.site.thumbnails.thumbnail": NONE,
    # The COUNTER API (issue 39): GET and HEAD only, reports of counts.
    "archive.api.views.counter.status": NONE, "archive.api.views.counter.members": NONE,
    "archive.api.views.counter.report_list": NONE, "archive.api.views.counter.report": NONE,
    "archive.site.usage.summary": NONE,
}
# The admin's models: (add view, change view, {action: class}).
ADMIN = {
    "Item": (GATED, CHANGE, {"move_to_collection": CHANGE, "map_into_collection": CHANGE,
                             "refresh_copies": COPY,
                             # Downloads of the selected items' records: read only.
                             "export_csv": NONE, "export_bibtex": NONE,
                             # issue 43: many items' access, tombstones (admin/bulk.py)
                             "change_access": CHANGE, "delete_selected": CHANGE}),
    "CopyJob": (COPY, NONE, {}), "ItemFile": (NONE, CHANGE, {"check_now": NONE}),
    "FixityCheck": (NONE, NONE, {}),  # the checks' history: read only
    "AccessRequest": (NONE, NONE, {}), "AccessLink": (NONE, NONE, {"revoke": NONE}),
    "AccessRead": (NONE, NONE, {}), "Community": (NONE, NONE, {}),
    "Collection": (NONE, NONE, {}), "MintingState": (NONE, NONE, {}),
    "SubmissionProfile": (NONE, NONE, {}), "Vocabulary": (NONE, NONE, {}),
    "VocabularyTerm": (NONE, NONE, {}),
    "MetadataSchema": (NONE, NONE, {}), "MetadataField": (NONE, NONE, {}),
    "RegisteredArchive": (NONE, NONE, {"switch_off": NONE}),
    "CollectionRole": (NONE, NONE, {}), "Workflow": (NONE, NONE, {}),
    # People's accounts (issue 36, 4): disabled, enabled, erased; never an item.
    "Account": (NONE, NONE, {"disable": NONE, "enable": NONE, "erase": NONE}),
    "Identity": (NONE, NONE, {}),
    "Submission": (REVIEW, REVIEW, {}),  # read only: has no add or change (below)
    "Group": (NONE, NONE, {}), "User": (NONE, NONE, {}), "TokenProxy": (NONE, NONE, {}),
    "AccessAttempt": (NONE, NONE, {"cleanup_expired_attempts": NONE}),
    "AccessLog": (NONE, NONE, {}),
    "AccessFailureLog": (NONE, NONE, {}),
    # What is inside the files (issue 37): read only; reading a file's text again writes
    # its pages, never an item.
    "FileExtraction": (NONE, NONE, {"extract_again": NONE}),
    # Usage (issue 39): the COUNTER API's customers and keys, the dashboards; never an item.
    "CounterCustomer": (NONE, NONE, {"issue_key": NONE}),
    "CounterApiKey": (NONE, NONE, {"revoke": NONE}), "UsageMonth": (NONE, NONE, {}),
}
COMMANDS = {
    "importitems": IMPORT, "importsaf": IMPORT, "harvest": IMPORT,
    "copyitem": COPY, "migrateitem": RESTORE, "rebuild": RESTORE,
    "ocfl": RESTORE,  # export writes files outside; rebuild restores items from an OCFL root
    "publishapproved": REVIEW,  # publishes approved submissions only
    "reviewdigest": NONE,  # mail
    "liftembargoes": CHANGE, "fixity": CHANGE, "fsck": CHANGE, "reindex": NONE,
    "createlibrarian": NONE, "createpeer": NONE, "exportbags": NONE, "exportsaf": NONE,
    "federation": NONE, "ibi": NONE, "registerarchive": NONE, "switchoff": NONE,
    "switchon": NONE, "refreshsamlmetadata": NONE,
    "extracttext": NONE, "thumbnails": NONE,  # a file's text and thumbnail, never an item
    "identifyformats": NONE,  # a file's format (issue 38), never an item
    "flush": NONE,  # Django's, allowed to empty the append-only events (archive/db/append_only.py)
    "counter_rollup": NONE,  # usage counts rolled up, never an item
}
TASKS = {
    "archive.tasks.copy_item": COPY, "archive.tasks.run_copy_job": COPY,
    "archive.tasks.resume_copy_jobs": COPY, "archive.tasks.refresh_copies": COPY,
    "archive.tasks.check_fixity": CHANGE, "archive.tasks.lift_embargoes": CHANGE,
    "archive.tasks.erase_access_requests": NONE, "archive.tasks.mail_access_answer": NONE,
    "archive.tasks.mail_access_answers": NONE, "archive.tasks.send_acknowledgment": NONE,
    "archive.tasks.mail_request_notices": NONE,
    "archive.tasks.send_acknowledgments": NONE, "archive.tasks.sweep_uploads": NONE,
    "archive.tasks.publish_approved": REVIEW,  # publishes approved submissions only
    "archive.tasks.mail_account_mails": NONE, "archive.tasks.refresh_saml_metadata": NONE,
    "archive.tasks.check_submission": NONE, "archive.tasks.check_submissions": NONE,
    "archive.tasks.mail_review_notices": NONE, "archive.tasks.review_digest": NONE,
    "archive.tasks.extract_files": NONE, "archive.tasks.extract_due": NONE,
    # Files' formats and their events (issue 38): never an item.
    "archive.tasks.identify_files": NONE, "archive.tasks.identify_due": NONE,
    "archive.tasks.roll_up_months": NONE,  # usage counts rolled up, never an item
}
# Where the source deposits or builds an item: (file, what it calls) → class.
SOURCES = {
    ("archive/admin/forms.py", "item_deposit"): GATED,
    ("archive/api/views/items.py", "item_deposit"): GATED,
    ("archive/management/commands/importitems.py", "item_deposit"): IMPORT,
    ("archive/dspace/services.py", "item_deposit"): IMPORT,  # for importsaf and harvest
    ("archive/dspace/imports.py", "deposit"): IMPORT,
    ("archive/dspace/harvest.py", "deposit"): IMPORT,
    ("archive/review/services.py", "item_deposit"): REVIEW,
    ("archive/preservation/copies.py", "Item"): COPY,
    ("archive/preservation/bagit.py", "Item.objects.create"): RESTORE,
    ("archive/deposit/services.py", "Item"): GATED,  # item_deposit's own
    ("archive/deposit/services.py", "item_deposit"): GATED,  # item_deposit_check's, unwritten
    ("archive/deposit/services.py", "Item.objects.create"): NONE,  # the archive service item
    ("archive/archive_service/relations.py", "Item"): NONE,  # unsaved, to compute a name
}
def test_every_write_path_is_classified():
    """A write path nobody classified is a way around the review nobody checked."""
    routes = write_paths.routes()
    unclassified = []
    for route, view in routes.items():
        writes = write_paths.writes(view)
        if writes is None:
            name = write_paths.view_name(view)
            if name not in FUNCTION_VIEWS:
                unclassified.append(("view", name))
        elif writes and route not in ROUTES:
            unclassified.append(("route", route))
    for name, actions in write_paths.admin_models().items():
        if name not in ADMIN:
            unclassified.append(("admin", name))
            continue
        unclassified += [("admin action", f"{name}.{a}") for a in actions - set(ADMIN[name][2])]
    unclassified += [("command", c) for c in write_paths.commands() - set(COMMANDS)]
    unclassified += [("task", t) for t in write_paths.tasks() - set(TASKS)]
    unclassified += [("source", site) for site in write_paths.source_sites() - set(SOURCES)]
    assert unclassified == [], unclassified
    # And no classification outlives its path.
    assert set(ROUTES) <= set(routes)
    assert set(COMMANDS) == write_paths.commands()
    assert set(SOURCES) <= write_paths.source_sites()
    # The review's own word, "reviewed", is said by its publication only; "elsewhere" only
    # by the imports, on the librarian's flag.
    for path in (ROOT / "archive").rglob("*.py"):
        text, relative = path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()
        if "Provenance.REVIEWED" in text:
            assert relative == "archive/review/services.py"
        assert not re.search(r"provenance\s*=\s*[\"'](reviewed|elsewhere)", text), relative
        if "Provenance.PUBLISHED_ELSEWHERE" in text and "models" not in relative:
            assert relative.startswith("archive/management/commands/"), relative
            assert "published_elsewhere" in text, relative


def test_the_submission_admin_writes_nothing(librarian_client):
    superuser = User.objects.create_superuser("root", password="x")
    model_admin = admin.site._registry[next(m for m in admin.site._registry
                                            if m.__name__ == "Submission")]

    class Asking:
        user = superuser
    assert not model_admin.has_add_permission(Asking)
    assert not model_admin.has_change_permission(Asking)
    assert not model_admin.has_delete_permission(Asking)


@pytest.fixture
def reviewed(settings):
    """The default collection and another reviewed (single review); an open collection; an
    item published in the reviewed one before its review began, and a superuser with a
    token."""
    general = Collection.objects.get(slug="general")
    unit = make.community("ppg")
    theses = make.collection("teses", unit)
    open_one = make.collection("aberta", unit)
    before = make.item(title="Publicada antes", collection=theses)
    for collection in (general, theses):
        make.reviewed(collection)
    root = User.objects.create_superuser("root", password="x")
    return {"general": general, "theses": theses, "open": open_one, "before": before,
            "root": root, "api": make.token_client(root)}


def _items() -> set[int]:
    return set(Item.objects.values_list("pk", flat=True))


def test_gated_paths_publish_nothing_new_in_a_reviewed_collection(reviewed, librarian,
                                                                   librarian_api,
                                                                   librarian_client):
    """GATED: the API (a deposit, a new edition, a translation, tus uploads) and the admin's
    add form, as a librarian and as a superuser."""
    ibi = reviewed["before"].ibi
    attempts = [{"collection": "teses"}, {"collection": "general"}, {},
                # A new edition or translation of a reviewed collection's item, filed in an
                # open collection, is refused too (InvenioRDM #2383).
                {"collection": "aberta", "previous_edition": ibi},
                {"collection": "aberta", "translation_of": ibi, "language": "en"}]
    items = _items()
    for api in (librarian_api, reviewed["api"]):
        for fields in attempts:
            refused = make.posted(api, **fields)
            assert refused.status_code == 403, (fields, refused.content)
            assert "reviews" in refused.json()["detail"]
    # The tus route's uploads, finalised by a deposit naming them: refused, kept waiting.
    upload = pending.keep(owner=librarian, file=make.uploaded("tese.pdf"))
    refused = librarian_api.post("/api/items/", {"title": "T", "uploads": [str(upload.pk)],
                                                 "collection": "teses"},
                                 format="multipart", secure=True)
    assert refused.status_code == 403
    assert PendingUpload.objects.filter(pk=upload.pk).exists()
    # The admin's add form.
    root_client = APIClient()
    root_client.force_login(reviewed["root"])
    for client in (librarian_client, root_client):
        page = make.admin_deposit(client, collection=str(reviewed["theses"].pk))
        assert page.status_code == 200 and b"reviews" in page.content
    assert _items() == items
    # The control: the open collection takes a deposit as before…
    made = make.posted(librarian_api, collection="aberta")
    assert made.status_code == 201
    # … but does not become a translation of a reviewed item afterwards (a CHANGE that would
    # be a translation deposited there).
    linked = librarian_api.patch(f"/api/items/{made.json()['ibi']}", {"translation_of": ibi},
                                 format="json", secure=True)
    assert linked.status_code == 403 and "reviews" in linked.json()["detail"]
    assert Item.objects.get(ibi=made.json()["ibi"]).translation_of is None


def test_the_submit_pages_publish_nothing_unreviewed(reviewed, settings, tmp_path):
    """REVIEW: /submit/ as a superuser — refused a draft where they hold no submitter role;
    holding it, their submission waits for review in a task, and no item is made (its file
    sent with the form waits as a pending upload)."""
    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    theses, root = reviewed["theses"], reviewed["root"]
    Collection.objects.filter(pk=theses.pk).update(deposit_licence=make.LICENCE)
    client = Client()
    client.force_login(root)
    items = _items()
    refused = client.post("/submit/", {"collection": "teses"}, secure=True)
    assert refused.status_code == 403 and not Submission.objects.exists()
    CollectionRole.objects.create(collection=theses, role="submitter", user=root)
    client.post("/submit/", {"collection": "teses"}, secure=True)
    submission = Submission.objects.get(owner=root)
    sent = client.post(f"/submit/{submission.pk}/", {
        "version": submission.version, "title": "Sem revisão?", "action": "submit",
        "accept_licence": "on", "upload": make.uploaded("tese.pdf")}, secure=True)
    assert sent.status_code == 302
    submission.refresh_from_db()
    assert submission.state == Submission.State.IN_REVIEW and submission.item is None
    assert Task.objects.filter(submission=submission, closed__isnull=True).exists()
    assert PendingUpload.objects.filter(pk=submission.files[0]).exists()
    assert _items() == items


def _importitems_csv(tmp_path: Path) -> Path:
    (tmp_path / "a.pdf").write_bytes(b"%PDF a")
    source = tmp_path / "items.csv"
    with source.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "title", "files"])
        writer.writeheader()
        writer.writerow({"id": "A-1", "title": "Imagens", "files": "a.pdf"})
    return source


def _run(*args) -> tuple[str, CommandError | None]:
    out = io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=io.StringIO())
    except CommandError as exc:
        return out.getvalue(), exc
    return out.getvalue(), None


def test_importitems_needs_the_librarians_word_in_a_reviewed_collection(reviewed, tmp_path):
    """IMPORT: importitems (importsaf and harvest below) deposit nothing into a reviewed
    collection without --published-elsewhere, and import with it."""
    items = _items()
    source = _importitems_csv(tmp_path)
    out, failed = _run("importitems", str(source), "--journal", str(tmp_path / "j1"))
    assert failed is not None and "reviews" in out and _items() == items
    out, failed = _run("importitems", str(source), "--journal", str(tmp_path / "j2"),
                       "--published-elsewhere")
    assert failed is None, out
    assert len(_items() - items) == 1



def test_importsaf_needs_the_librarians_word_in_a_reviewed_collection(reviewed, tmp_path):
    from tests.test_importsaf import SAF

    export = tmp_path / "export"
    shutil.copytree(SAF, export)
    for collection in make.dspace_collections().values():
        make.reviewed(collection)
    items = _items()
    out, failed = _run("importsaf", str(export), "--collection", "teses",
                       "--report", str(tmp_path / "r1.csv"))
    assert _items() == items and "0 imported" in out, out
    out, failed = _run("importsaf", str(export), "--collection", "teses",
                       "--report", str(tmp_path / "r2.csv"), "--published-elsewhere")
    assert len(_items() - items) > 0, out


def test_harvest_needs_the_librarians_word_in_a_reviewed_collection(reviewed, tmp_path):
    from tests.servers import ScriptedOai

    items = _items()
    mapping = tmp_path / "map.csv"  # the records' DSpace collections: the reviewed theses
    mapping.write_text("".join(f"{handle},teses\n" for handle in make.OAI_COLLECTIONS.values()))
    with ScriptedOai() as oai:
        out, failed = _run("harvest", oai.base, "--report", str(tmp_path / "h1.csv"),
                           "--map-collections", str(mapping))
        assert _items() == items and "0 imported" in out and "reviews" in out, out
        out, failed = _run("harvest", oai.base, "--report", str(tmp_path / "h2.csv"),
                           "--full", "--published-elsewhere", "--map-collections", str(mapping))
    assert len(_items() - items) == 4, out
    assert reviewed["theses"].items.filter(pk__in=_items() - items).count() == 2
    # The function under both, asked directly: new content is refused.
    with pytest.raises(Forbidden):
        dspace.deposit(title="T", language="", dc={}, uploads=[], target_file="", ids=[],
                       collection=reviewed["theses"])
    assert Provenance.NEW == "new"


def test_a_copy_into_a_reviewed_collection_is_a_copy_not_an_original(reviewed, settings):
    """COPY: another Archive's Original, held as a Copy under its own IBI: no IBI is minted
    here and it is no Original of this Archive."""
    archive = FakeArchive()
    settings.IBI_PEER_ARCHIVES = (archive.base_url,)
    try:
        record = make.held_elsewhere(archive, collection=reviewed["open"])
        copies.copy_item(ibi=record["ibi"], source=archive.base_url)
    finally:
        archive.close()
    copy = Item.objects.get(ibi=record["ibi"])
    assert copy.state == Item.State.COPY and copy.ibip == record["ibip"]
