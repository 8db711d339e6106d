"""Who may do what through the API: anonymous reads, writes by the model permissions the
Librarians group holds (archive/deposit/services.py `ensure_librarians_group`)."""
from __future__ import annotations

from rest_framework.permissions import DjangoModelPermissions, DjangoModelPermissionsOrAnonReadOnly


class ItemPermissions(DjangoModelPermissionsOrAnonReadOnly):
    """Anonymous reads; writes need archive.add_item / change_item / delete_item."""


class AddFilesPermissions(ItemPermissions):
    perms_map = {**ItemPermissions.perms_map, "POST": ["%(app_label)s.change_%(model_name)s"]}


class HandOverPermissions(DjangoModelPermissions):
    # Giving the Original away is as weighty as changing and deleting the item here.
    perms_map = {**DjangoModelPermissions.perms_map,
                 "POST": ["%(app_label)s.change_%(model_name)s",
                          "%(app_label)s.delete_%(model_name)s"]}


class CopyNoticePermissions(DjangoModelPermissions):
    """Telling of a Copy made elsewhere is the copying Archive's account's (createpeer: it
    holds archive.view_item, and so do librarians); an account that cannot read every item
    copies nothing worth recording."""

    perms_map = {**DjangoModelPermissions.perms_map,
                 "POST": ["%(app_label)s.view_%(model_name)s"]}
