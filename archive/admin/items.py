"""The librarian's admin: deposit, describe, link and tombstone items; all writes via services."""
from __future__ import annotations

from urllib.parse import quote

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IS_POPUP_VAR
from django.contrib.admin.views.autocomplete import AutocompleteJsonView
from django.db.models import Case, IntegerField, Prefetch, Q, Value, When
from django.http import HttpRequest, HttpResponseRedirect
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.text import format_lazy
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from ..communities import services as tree
from ..deposit import links, services, storage
from ..models import DC_ELEMENTS, Collection, DcValue, Item, MintingState
from ..profiles import selectors as profiles
from ..refusals import Refusal
from ..search import lookup
from ..search import selectors as search
from ..web import middleware, profile_fields
from ..web.addresses import base_url
from ..web.wrapping import breakable
from . import export
from .bulk import BulkActsMixin
from .copies import CopiesAdminMixin, ReadOnlyAdmin
from .filters import LanguageFilter, TypeFilter, YearFilter
from .forms import (
    CONTROLLED,
    CollectionChoiceForm,
    ItemAdminForm,
    dc_field_name,
    other_field_name,
)
from .fulltext import flagged_table
from .orcid import OrcidInvitationMixin
from .preservation import PreservationAdminMixin, may_read_events


def _dublin_core_fields(shown=DC_ELEMENTS) -> list[str]:
    """Each element's field, what a librarian fills most often first (creator, date, type,
    rights), a controlled one (type, rights) followed by its other values; `shown`: the
    elements the profile has."""
    first = ("creator", "date", "type", "rights")
    fields = []
    for element in (*first, *(e for e in DC_ELEMENTS if e not in first)):
        if element not in shown:
            continue
        fields.append(dc_field_name(element))
        if element in CONTROLLED:
            fields.append(other_field_name(element))
    return fields


class PickerJsonView(AutocompleteJsonView):
    """The pickers' answers ("Previous edition", "Translation of"): each item with its
    edition and date beside its title and IBI, so that the librarian tells editions apart.
    The ranking is ItemAdmin.get_search_results'."""

    def serialize_result(self, obj, to_field_name) -> dict:
        result = super().serialize_result(obj, to_field_name)
        if isinstance(obj, Item):
            result["text"] = picker_text(obj)
        return result


def picker_text(item: Item) -> str:
    """"Relatório técnico — 2ª edição, 2013-09-04 · sid.inpe.br/…" in the librarian's
    language: the date is the item's dc:date, else the day it was deposited."""
    date = next(iter(item.dc("date")), "") or item.created.date().isoformat()
    return gettext("%(title)s — edition %(number)d, %(date)s · %(ibi)s") % {
        "title": item.title, "number": item.edition_number, "date": date, "ibi": item.ibi}


def autocomplete_view(request):
    return PickerJsonView.as_view(admin_site=admin.site)(request)


# Django's admin site asks its own autocomplete_view for /admin/autocomplete/ (when its URLs
# are first built, after this module is imported by autodiscovery).
admin.site.autocomplete_view = autocomplete_view


# What each level does, for the librarian choosing it (the fieldset's description).
ACCESS_LEVELS = format_lazy(
    "<ul>{}</ul>", format_lazy("<li>{}</li>" * 4,
                               _("<b>open</b>: every file is open to all (except the "
                                 "restricted files below);"),
                               _("<b>embargoed</b>: the files are closed until the embargo's "
                                 "date, the first day they open to all by themselves; "
                                 "readers may ask for a copy;"),
                               _("<b>restricted</b>: the files are for librarians and for "
                                 "holders of a secret link (one you make, or one an approved "
                                 "request brings); readers may ask for a copy;"),
                               _("<b>metadata only</b>: only the description is public; the "
                                 "files, even their names, are for librarians alone.")))


@admin.register(Item)
class ItemAdmin(OrcidInvitationMixin, BulkActsMixin, CopiesAdminMixin, PreservationAdminMixin,
                admin.ModelAdmin):
    form = ItemAdminForm
    list_display = ["title", "ibi_column", "ibip_column", "state", "access_rights", "language",
                    "updated"]
    list_display_links = ["title"]
    list_filter = [TypeFilter, "access_rights", "collection", YearFilter, "state",
                   ("language", LanguageFilter)]
    search_fields = ["ibi", "ibip", "title"]
    autocomplete_fields = ["previous_edition", "translation_of", "collection"]
    # Django's two-list chooser, not select2's multiple choice: its inline search field has
    # no label (axe-core: critical), the chooser's filter has one.
    filter_horizontal = ["mapped_collections"]
    list_per_page = 50
    # A search or a filter counts its matches, not every item again (a million, each page).
    show_full_result_count = False
    actions = [*CopiesAdminMixin.actions, *BulkActsMixin.actions, "move_to_collection",
               "map_into_collection", export.export_csv, export.export_bibtex]
    dublin_core = (_("Dublin Core"), {"fields": _dublin_core_fields()})
    collections = (_("Collections"), {
        "fields": ["collection", "mapped_collections"],
        "description": _("The collection that owns the item (moving it there), and the "
                         "others it is shown in. A deposit that names no access gets its "
                         "collection's default.")})
    access = (_("Access"), {
        "fields": ["access_rights", "embargo_until", "access_reason", "restricted_files"],
        "description": ACCESS_LEVELS})

    class Media:
        # The uploader: several files by drag and drop, a progress bar each, resumable (tus).
        js = ["archive/vendor/tus-js-client/tus.min.js", "archive/uploader.js"]

    def _profile(self, request, obj=None):
        """(profile, its entries) of the collection the item is saved in: the one the form
        sent, else the item's, else the one the add page was opened for (?collection=<id>),
        else the default collection's. Read once a request."""
        if not hasattr(request, "_item_profile"):
            chosen = request.POST.get("collection") or (
                "" if obj is not None else request.GET.get("collection", ""))
            collection = (Collection.objects.filter(pk=chosen).select_related("profile").first()
                          if chosen.isdigit() else None)
            if collection is None:
                collection = obj.collection if obj is not None else tree.default_collection()
            profile = profiles.profile_of(collection)
            request._item_profile = (profile, tuple(profiles.entries_of(profile)))
        return request._item_profile

    def get_form(self, request, obj=None, change=False, **kwargs):
        """The form knows its librarian: the owner of the files waiting in it, and the author
        of its deposit (a class made for this request); what the write refused, when this
        request's form is drawn again for it (changeform_view); and the fields of the
        collection's submission profile (profile_fields.py)."""
        _profile, entries = self._profile(request, obj)
        own = profile_fields.form_fields(list(entries))
        # As Django's get_form would: a declared field shown read-only is no form field.
        readonly = dict.fromkeys(f for f in self.get_readonly_fields(request, obj)
                                 if f in self.form.declared_fields)
        kwargs["form"] = type(self.form.__name__, (self.form,), {
            **own, **readonly, "profile_entries": entries})
        form = super().get_form(request, obj, change, **kwargs)
        return type(form.__name__, (form,), {
            "user": request.user, "refusal": getattr(request, "deposit_refusal", None)})

    def _metadata(self, request, obj=None):
        """The fieldset of the item's metadata, as its collection's profile has it."""
        profile, entries = self._profile(request, obj)
        if not entries:
            return self.dublin_core
        entries = list(entries)
        plain = set(profile_fields.plain_elements(entries))
        fields = []
        for entry in entries:  # in the profile's order
            element = entry.name[3:]
            if element in plain and not entry.language:
                fields.append(dc_field_name(element))
                if element in CONTROLLED:  # the choice, then the other values as written
                    fields.append(other_field_name(element))
            else:
                fields.append(profile_fields.field_name(entry))
        return (format_lazy("{}: {}", _("Metadata"), profile.name), {
            "fields": fields, "description": _(
                "The fields of the collection's submission profile. Choose the collection "
                "and save to get another collection's fields.")})

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except Refusal as refusal:
            if getattr(request, "deposit_refusal", None) is not refusal:
                raise
        # The write refused what the form's checks could not foresee (a full storage, a race
        # lost): its transaction rolled back, nothing is kept. The form is drawn again, as
        # Django draws an invalid one, with the refusal as its error (ItemAdminForm.refusal).
        return super().changeform_view(request, object_id, form_url, extra_context)

    # IBIs wrap at their slashes (a repository name also after a dot of its date), never
    # mid-word.
    @admin.display(description=Item._meta.get_field("ibi").verbose_name, ordering="ibi")
    def ibi_column(self, obj: Item) -> str:
        return breakable(obj.ibi, "/.")

    @admin.display(description=Item._meta.get_field("ibip").verbose_name, ordering="ibip")
    def ibip_column(self, obj: Item) -> str:
        return breakable(obj.ibip, "/")

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return [
                (None, {"fields": ["title", "upload", "pending", "target_file", "language",
                                   "transferable"]}),
                (_("Links"), {"fields": ["previous_edition", "translation_of"],
                              "description": _("Find an item by its IBI (either form) or "
                                               "title. Editions are linked at deposit only.")}),
                self.collections,
                self.access,
                self._metadata(request),
            ]
        editable = self.has_change_permission(request, obj)
        return [
            (_("Identification"), {"fields": ["ibi", "ibip", "state", "edition",
                                              "created", "updated", "deleted_at"]}),
            (None, {"fields": ["title", "target_file", "language", "transferable"]}),
            (_("Files"), {"fields": ["file_table", "text_extraction", "upload", "pending"]
                          if editable else ["file_table", "text_extraction"]}),
            *([self.collections, self.access] if editable else []),
            (_("Links"), {"fields": ["previous_edition", "translation_of"]}),
            # A view-only page (a tombstone) has no form fields to show the values in.
            self._metadata(request, obj) if editable
            else (_("Dublin Core"), {"fields": ["dc_values"]}),
            *([self.preservation] if may_read_events(request) else []),
        ]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        # The IBI fields are read-only everywhere; editions are linked at deposit only.
        return ["ibi", "ibip", "state", "edition", "created", "updated", "deleted_at",
                "file_table", "text_extraction", "previous_edition", "event_history"]

    @admin.display(description=_("Edition"))
    def edition(self, obj: Item) -> str:
        return gettext("%(number)d (first: %(first)s)") % {"number": obj.edition_number,
                                                           "first": obj.edition_family}

    @admin.display(description=_("Values"))
    def dc_values(self, obj: Item) -> str:
        return format_html_join("", "<div>{}: {}</div>",
                                ((v.element, v.value) for v in obj.dc_values.all()))

    @admin.display(description=_("Text extraction: problems"))
    def text_extraction(self, obj: Item) -> str:
        return flagged_table(obj)

    @admin.display(description=_("Files"))
    def file_table(self, obj: Item) -> str:
        # Classes name the columns that a narrow screen hides or wraps (static/archive/admin.css).
        rows = format_html_join("", (
            '<tr><td class="name"><a href="/{}">{}</a></td><td>{}</td><td class="bytes">{}</td>'
            '<td class="sha256"><code>{}</code></td><td class="type">{}</td>'
            '<td class="format">{}</td><td>{}</td><td{}>{}</td></tr>'), (
            (quote(storage.file_key(obj.ibi, f.name)), breakable(f.name),
             filesizeformat(f.size), f.size, f.sha256, f.content_type, _format_said(f),
             _("restricted") if f.restricted else "", *_fixity_cell(f))
            for f in obj.files.order_by("name")))
        return format_html(
            '<div class="ibi-files-wrap"><table class="ibi-files"><thead><tr><th>{}</th>'
            '<th>{}</th><th class="bytes">{}</th><th class="sha256">{}</th>'
            '<th class="type">{}</th><th class="format">{}</th><th>{}</th><th>{}</th></tr>'
            "</thead><tbody>{}</tbody></table></div>",
            _("name"), _("size"), _("bytes"), "sha256", _("content type"),
            _("format (PRONOM)"), _("access"), _("fixity"), rows)

    def render_change_form(self, request, context, add=False, change=False, form_url="",
                           obj=None):
        # The persistent URL depends on the request (host, scheme), which readonly fields lack.
        if obj is not None:
            context["persistent_url"] = links.persistent_url(obj.ibi, base_url(request))
            context["landing_url"] = links.landing_url(obj.ibi, base_url(request))
        form = context["adminform"].form
        if form.is_bound and form.errors:
            form.keep_uploads()  # the form sent back: its files wait in it
        response = super().render_change_form(request, context, add, change, form_url, obj)
        if getattr(form, "refused_status", None) == 507:
            response.status_code = 507  # the storage is full: the form again, saying so
        return response

    def get_search_results(self, request, queryset, search_term):
        # A whole identifier finds just its item(s), by an indexed lookup: an IBI in any
        # spelling (other case, legacy @port, IBIp), an old Handle, a DOI (search/lookup.py).
        # Anything else is words: the site's search (title, creators, subjects, every value;
        # full text on PostgreSQL) or a part of an IBI.
        picker = bool(request.resolver_match
                      and request.resolver_match.url_name == "autocomplete")
        term = search_term.strip()
        found = lookup.items_named(term, queryset) if term else None
        may_have_duplicates = False
        if found is None and term:
            # By id: the search's own `rank` must not meet the pickers' (below).
            found = queryset.filter(pk__in=search.matching(queryset, term)[0].values("pk"))
            # Django's substring search (IBI, IBIp, title) reads every item: only for a part
            # of an IBI, and in the pickers, where the librarian types the start of a title.
            if picker or (not any(c.isspace() for c in term) and any(c in term for c in "/.")):
                parts, may_have_duplicates = super().get_search_results(request, queryset,
                                                                        search_term)
                found = queryset.filter(Q(pk__in=found.values("pk"))
                                        | Q(pk__in=parts.values("pk")))
        elif found is None:
            found = queryset
        if picker:
            # Links point at live, ordinary items only; the title the librarian typed ranks
            # first, then titles that start with it, each family oldest edition first.
            found = found.filter(is_archive_service=False).exclude(state=Item.State.DELETED)
            term = search_term.strip()
            found = found.annotate(rank=Case(
                When(title__iexact=term, then=Value(0)),
                When(title__istartswith=term, then=Value(1)),
                default=Value(2), output_field=IntegerField(),
            )).order_by("rank", "title", "edition_number", "created", "pk")
            # Each answer shows its date (picker_text): one query for the page, not one each.
            found = found.prefetch_related(
                Prefetch("dc_values", queryset=DcValue.objects.filter(element="date")))
        return found, may_have_duplicates

    def get_queryset(self, request):
        # The archive service item is the Archive's own record (RTC-11 §5.1), kept by the
        # services; only a superuser sees it among the librarian's items.
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(is_archive_service=False)

    def log_addition(self, request, obj, message):
        if getattr(request, "repeated_deposit", None) is None:
            return super().log_addition(request, obj, message)
        return None

    def response_add(self, request, obj, post_url_continue=None):
        """After a plain Save the librarian lands on the new item, its IBIs and persistent URL
        in view (Django would go back to the list); a deposit sent again, on the item it
        made the first time."""
        if getattr(request, "repeated_deposit", None) is not None:
            self.message_user(request, _(
                "“%(title)s” was deposited already, a moment ago, as %(ibi)s: this is that "
                "item, not a new one.") % {"title": obj.title, "ibi": obj.ibi}, messages.WARNING)
            return HttpResponseRedirect(reverse("admin:archive_item_change", args=[obj.pk]))
        if any(key in request.POST for key in ("_addanother", "_continue", IS_POPUP_VAR)):
            return super().response_add(request, obj, post_url_continue)
        self.message_user(request, _("Deposited “%(title)s”: %(ibi)s, %(ibip)s.") % {
            "title": obj.title, "ibi": obj.ibi, "ibip": obj.ibip}, messages.SUCCESS)
        return HttpResponseRedirect(reverse("admin:archive_item_change", args=[obj.pk]))

    def save_model(self, request, obj, form, change) -> None:
        """The deposit, or the change, written by the services (the form only checked it)."""
        try:
            item = form.save_deposit()
        except Refusal as refusal:
            request.deposit_refusal = refusal  # the form again, saying why (changeform_view)
            raise
        if item is not obj:  # a new item (or the earlier deposit): Django goes on with `obj`
            vars(obj).update(vars(item))
        # A deposit the form found made already (the same content sent again): no new item,
        # so no "added" entry, and the librarian is told (response_add).
        request.repeated_deposit = form.repeated
        if not change:
            # Should the database fail after the deposit's commit: a 303 to the item, never
            # "send it again" (archive/web/middleware.py).
            middleware.made(request, reverse("admin:archive_item_change", args=[obj.pk]))

    def save_related(self, request, form, formsets, change) -> None:
        # The collections were written by the tree's services (ItemAdminForm._place), not by
        # the form's save_m2m.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def has_change_permission(self, request, obj=None) -> bool:
        if obj is not None and obj.is_deleted:
            return False  # a tombstone is shown read-only
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        if obj is not None and (obj.is_archive_service or obj.is_deleted):
            return False
        return super().has_delete_permission(request, obj)

    # -- Bulk: move to a collection, map into one (a confirmation page first) ----------------

    @admin.action(description=_("Move the selected items to a collection"),
                  permissions=["change"])
    def move_to_collection(self, request: HttpRequest, queryset) -> TemplateResponse | None:
        return self._collection_action(
            request, queryset, "move_to_collection", tree.items_move,
            title=_("Move items to a collection"),
            intro=_("The chosen collection will own these items: their pages, OAI-PMH sets "
                    "and feeds change with it. A collection they were mapped into and now "
                    "own is no longer a mapping. Tombstones and the archive service stay "
                    "where they are."),
            button=_("Yes, move them"),
            done=lambda n: ngettext("%(count)d item moved to %(collection)s.",
                                    "%(count)d items moved to %(collection)s.", n))

    @admin.action(description=_("Map the selected items into a collection"),
                  permissions=["change"])
    def map_into_collection(self, request: HttpRequest, queryset) -> TemplateResponse | None:
        return self._collection_action(
            request, queryset, "map_into_collection", tree.items_map_into,
            title=_("Map items into a collection"),
            intro=_("These items will also be shown in the chosen collection (its page, "
                    "OAI-PMH set and feed), and keep their owning collection and other "
                    "mappings. Tombstones and the archive service are left alone."),
            button=_("Yes, map them"),
            done=lambda n: ngettext("%(count)d item mapped into %(collection)s.",
                                    "%(count)d items mapped into %(collection)s.", n))

    def _collection_action(self, request: HttpRequest, queryset, action: str, write, *,
                           title, intro, button, done) -> TemplateResponse | None:
        """The confirmation page, with the collection to choose; once confirmed, the write
        (a tree service) and a message, and back to the list."""
        form = CollectionChoiceForm(request.POST if request.POST.get("post") else None)
        if form.is_valid():
            collection = form.cleaned_data["collection"]
            try:
                count = write(items=queryset, collection=collection)
            except Refusal as exc:
                self.message_user(request, str(exc), messages.ERROR)
                return None
            self.message_user(request, done(count) % {"count": count,
                                                      "collection": collection.name},
                              messages.SUCCESS)
            return None
        return TemplateResponse(request, "admin/archive/item/collection_action.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "title": title, "intro": intro, "button": button, "form": form,
            "queryset": queryset.select_related("collection"), "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME})

    # -- Delete makes a tombstone ----------------------------------------------------------

    def get_deleted_objects(self, objs, request):
        """Only the items themselves are touched (no cascade), and never the archive service."""
        objs = list(objs)
        deletable = [str(o) for o in objs if not o.is_archive_service]
        protected = [_("%(item)s: the archive service cannot be deleted") % {"item": o}
                     for o in objs if o.is_archive_service]
        return deletable, {Item._meta.verbose_name_plural: len(deletable)}, set(), protected

    def delete_model(self, request, obj: Item) -> None:
        # The confirmation page's reason and checkbox (templates/admin/archive/item/
        # delete_confirmation.html); a reason too long is cut rather than lost with the delete.
        limit = Item._meta.get_field("deletion_reason").max_length
        services.item_delete(item=obj, reason=request.POST.get("reason", "")[:limit],
                             at_creators_request=bool(request.POST.get("at_creators_request")))

    # Many at once (delete_selected, delete_queryset): bulk.py.


def _format_said(file) -> str:
    """A file's format from its content: "fmt/95 PDF/A 1b", or why there is none."""
    if file.format_puid:
        return " ".join(p for p in (file.format_puid, file.format_name, file.format_version) if p)
    return _("not identified") if file.format_identified else _("not identified yet")


def _fixity_cell(file) -> tuple[str, str]:
    """(attributes, text) of a file's fixity cell: a damaged file is not served (503) until a
    check passes again, so the librarian must see it here, not only in Item files."""
    if file.fixity_problem:
        return (format_html(' class="errornote" title="{}"',
                            _("not served until restored and checked again")),
                format_html("{}: {}", _("DAMAGED, not served"), file.fixity_problem))
    if file.checked_at:
        return "", format_html("{} {}", _("intact, checked"), file.checked_at.date())
    return "", _("not checked yet")


@admin.register(MintingState)
class MintingStateAdmin(ReadOnlyAdmin):
    """Shown for audits; only the minting service ever writes it."""

    list_display = ["name", "last_date_for_suffix", "updated"]
