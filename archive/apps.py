from __future__ import annotations

import os

from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_migrate
from django.utils.functional import lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class ArchiveConfig(AppConfig):
    name = "archive"
    verbose_name = _("IBI archive")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the system checks)
        from .db import append_only

        append_only.install()

        # Uploads wait there (settings.FILE_UPLOAD_TEMP_DIR); Django would not create it.
        os.makedirs(settings.FILE_UPLOAD_TEMP_DIR, mode=0o700, exist_ok=True)

        _brand_the_admin()
        post_migrate.connect(_create_archive_service, sender=self)

    def mint_ibi(self) -> tuple[str, str]:
        """A new IBI, (repository name, IBIp), for Item.save: an IBI at save time, however the
        item is created. The minting service is identifiers/minting.py."""
        from .identifiers.minting import mint

        minted = mint()
        return minted.rep, minted.ibip

    def default_access(self, level: str, embargo_days: int, today):
        """A collection's default access for a deposit (access/policy.py `default_access`),
        for deposit/services.py, which archive/access/ imports."""
        from .access import policy

        return policy.default_access(level, embargo_days, today)

    def check_deposit(self, *, collection_ids, provenance: str) -> None:
        """The review rule's word on a deposit (review/policy.py `check_deposit`), for
        deposit/services.py, which archive/review/ imports: refused (a 403) where one of the
        collections reviews and the content is new here."""
        from .review import policy, selectors

        policy.check_deposit(selectors.workflow_kinds(collection_ids), provenance)

    def record_event(self, type: str, **fields):
        """A preservation event (preservation/events.py `record`), for deposit/services.py,
        which archive/preservation/ imports: in the caller's transaction, its agent whoever
        acts now unless `agent` says."""
        from .preservation import events

        return events.record(type, **fields)

    def files_stored(self, file_ids: list[int]) -> None:
        """New files committed (deposit/services.py, on commit): a worker identifies their
        formats (archive/preservation/formats.py) unless IBI_IDENTIFY_FORMATS is off, and
        reads their text and makes their thumbnails soon (archive/fulltext/tasks.py) unless
        IBI_EXTRACT_TEXT is off; the beat's `identify_due` and `extract_due` do what a lost
        nudge left."""
        if not file_ids:
            return
        from .web import nudges

        if settings.IBI_IDENTIFY_FORMATS:
            from .preservation import tasks as preservation

            nudges.soon(preservation.identify_files, *file_ids)
        if settings.IBI_EXTRACT_TEXT:
            from .fulltext import tasks

            nudges.soon(tasks.extract_files, *file_ids)

    def default_collection(self) -> int:
        """The id of the default collection, for Item.save (made if a flush emptied it)."""
        from .communities.services import default_collection

        return default_collection().pk


def _brand_the_admin() -> None:
    """The admin says whose repository it is, not "Django administration"."""
    from django.contrib import admin

    admin.site.site_header = admin.site.site_title = _repository_name()
    admin.site.index_title = _("Collection and deposits")


def _repository_name():
    """IBI_REPOSITORY_NAME, else "IBI repository" in the reader's language, read at each use."""
    return lazy(lambda: settings.IBI_REPOSITORY_NAME or gettext("IBI repository"), str)()


def _create_archive_service(sender, using="default", **kwargs) -> None:
    """The archive service is itself an identified item, created on the first migrate. Not
    while migrations remain to apply (`migrate archive 0026`, forwards or backwards): today's
    models need today's tables."""
    from django.db import connections
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connections[using])
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        return
    from .deposit.services import ensure_archive_service, ensure_librarians_group
    from .profiles.services import ensure_builtin
    from .registry.seed import ensure_seeded

    ensure_seeded()  # migration 0028 did; a flush (tests) empties it
    ensure_builtin()  # migration 0035 did, likewise
    ensure_archive_service()
    ensure_librarians_group()
