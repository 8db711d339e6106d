"""The tree in the admin: librarians build communities and collections (the tree's services
check and write: a slug taken, a cycle, a collection with items deleted are form errors,
nothing saved); items are moved and mapped on their own page (forms.py)."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from ..communities import services
from ..models import Collection, Community
from ..refusals import Refusal


class _ServiceChecked(forms.ModelForm):
    """The form's errors are the service's refusals, shown before anything is saved, on the
    field they name ("parent: …")."""

    check = None  # the service's check, given the unsaved instance

    def _post_clean(self) -> None:
        super()._post_clean()
        if self.errors:
            return
        try:
            type(self).check(self.instance)
        except Refusal as exc:
            field, _sep, message = str(exc).partition(": ")
            if field in self.fields:
                self.add_error(field, message)
            else:
                self.add_error(None, str(exc))


class CommunityForm(_ServiceChecked):
    check = staticmethod(lambda community: services.community_check(community=community))


class CollectionForm(_ServiceChecked):
    check = staticmethod(lambda collection: services.collection_check(collection=collection))


class _Deleting:
    """Deleting goes through the service, which refuses what is not empty: the librarian
    is told why and nothing is deleted."""

    delete_service = None

    def delete_model(self, request, obj) -> None:
        try:
            type(self).delete_service(obj)
        except Refusal as exc:
            self.message_user(request, str(exc), messages.ERROR)

    def delete_queryset(self, request, queryset) -> None:
        for obj in queryset:
            self.delete_model(request, obj)

    def get_deleted_objects(self, objs, request):
        # No cascade to show: the service deletes only what holds nothing.
        return [str(o) for o in objs], {}, set(), []


@admin.register(Community)
class CommunityAdmin(_Deleting, admin.ModelAdmin):
    form = CommunityForm
    list_display = ["name_pt_br", "name_en", "slug", "parent"]
    search_fields = ["slug", "name_pt_br", "name_en"]
    autocomplete_fields = ["parent"]
    list_select_related = ["parent"]
    delete_service = staticmethod(lambda community: services.community_delete(
        community=community))

    def save_model(self, request, obj, form, change) -> None:
        services.community_save(community=obj)


@admin.register(Collection)
class CollectionAdmin(_Deleting, admin.ModelAdmin):
    form = CollectionForm
    list_display = ["name_pt_br", "name_en", "slug", "community", "default_access_rights",
                    "profile", "deposit_here"]
    list_filter = ["default_access_rights"]
    search_fields = ["slug", "name_pt_br", "name_en", "handle"]
    autocomplete_fields = ["community"]
    list_select_related = ["community", "profile"]
    delete_service = staticmethod(lambda collection: services.collection_delete(
        collection=collection))

    @admin.display(description=_("Deposit"))
    def deposit_here(self, obj: Collection) -> str:
        """The deposit form with this collection's fields (its submission profile's)."""
        return format_html('<a href="{}?collection={}">{}</a>',
                           reverse("admin:archive_item_add"), obj.pk, _("deposit here"))

    def save_model(self, request, obj, form, change) -> None:
        services.collection_save(collection=obj)
