"""The librarian's side of access (archive/access/): requests for a copy (approve or refuse
with a message: the reader is mailed the answer, with a secret link when approved; deleted, or
erased by the nightly task after IBI_ACCESS_REQUEST_DAYS), secret links (made here, the URL
shown once; revoked, or deleted), and the audit trail of reads of closed files (who or which
link, when, item, file; never an IP address)."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.utils import timezone
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext, pgettext

from ..access import services, tasks
from ..deposit import links
from ..models import AccessLink, AccessRead, AccessRequest
from ..refusals import Refusal
from ..web import nudges
from ..web.addresses import base_url
from .copies import ReadOnlyAdmin


class AnswerForm(forms.ModelForm):
    """A request's answer: approve (a link valid IBI_ACCESS_LINK_DAYS days is mailed) or
    refuse, with a message to the reader."""

    decision = forms.ChoiceField(
        label=_("Answer"), widget=forms.RadioSelect,
        choices=[("approve", _("Approve: mail the reader a secret link to the files")),
                 ("refuse", _("Refuse: mail the reader that the request was not approved"))])

    class Meta:
        model = AccessRequest
        fields = ["message"]
        help_texts = {"message": _("mailed to the reader with the answer (optional)")}

    def _post_clean(self) -> None:
        # The services answer once the form is valid; a refusal is the form's error.
        super()._post_clean()
        if self.errors:
            return
        data = self.cleaned_data
        try:
            if data["decision"] == "approve":
                self.instance = services.approve(
                    request=self.instance, by=self.user, message=data["message"],
                    base=self.base)
            else:
                self.instance = services.refuse(request=self.instance, by=self.user,
                                                message=data["message"])
        except Refusal as exc:
            self.add_error(None, str(exc))


@admin.register(AccessRequest)
class AccessRequestAdmin(admin.ModelAdmin):
    list_display = ["created", "item", "name", "email", "status", "decided_at", "mailed_at"]
    list_filter = ["status", "created"]
    search_fields = ["name", "email", "item__ibi", "item__title"]
    readonly_fields = ["item", "name", "email", "reason", "language", "created", "status",
                       "decided_at", "decided_by", "mailed_at", "link_expires", "erased_at"]
    date_hierarchy = "created"

    form = AnswerForm

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.user, form.base = request.user, base_url(request)  # for the form's service call
        return form

    @staticmethod
    def _answerable(obj: AccessRequest | None) -> bool:
        return obj is None or (obj.status == AccessRequest.Status.PENDING
                               and obj.erased_at is None)

    def get_fields(self, request, obj=None):
        if obj is not None and self._answerable(obj):
            return ["item", "name", "email", "reason", "created", "decision", "message"]
        return [*self.readonly_fields, "message"]

    def get_readonly_fields(self, request, obj=None):
        if not self._answerable(obj):
            return [*self.readonly_fields, "message"]
        return self.readonly_fields

    def has_change_permission(self, request, obj=None) -> bool:
        if not self._answerable(obj):
            return False  # answered, or erased: shown as it is
        return super().has_change_permission(request, obj)

    @admin.display(description=_("link expires"))
    def link_expires(self, obj: AccessRequest):
        link = getattr(obj, "link", None)
        return link.expires if link is not None else "—"

    def has_add_permission(self, request) -> bool:
        return False  # readers ask, on the landing page

    def save_model(self, request, obj: AccessRequest, form, change) -> None:
        """Answered already by the form (AnswerForm): the mail is owed, a worker nudged after
        the commit, off this thread (archive/web/nudges.py)."""
        transaction.on_commit(lambda: nudges.soon(tasks.mail_access_answers))
        messages.success(request, _("The answer is on its way to %(email)s.")
                         % {"email": obj.email})


class LinkForm(forms.ModelForm):
    """A new secret link, made by the services once the form is valid (a refusal is the
    form's error); its token is kept on the form for the page to show once."""

    class Meta:
        model = AccessLink
        fields = ["item", "expires", "note"]

    token = ""

    def _post_clean(self) -> None:
        super()._post_clean()
        if self.errors or self.instance.pk is not None:
            return
        data = self.cleaned_data
        try:
            self.instance, self.token = services.create_link(
                item=data["item"], expires=data["expires"], note=data.get("note", ""),
                by=getattr(self, "user", None))
        except Refusal as exc:
            self.add_error(None, str(exc))


@admin.register(AccessLink)
class AccessLinkAdmin(admin.ModelAdmin):
    form = LinkForm
    list_display = ["created", "item", "note", "expires", "state", "created_by", "request"]
    list_filter = ["created", "expires"]
    search_fields = ["note", "item__ibi", "item__title"]
    autocomplete_fields = ["item"]
    actions = ["revoke"]

    @admin.display(description=_("state"))
    def state(self, obj: AccessLink) -> str:
        if obj.revoked_at is not None:
            return pgettext("secret link state", "revoked")
        return (pgettext("secret link state", "expired") if obj.expires <= timezone.localdate()
                else pgettext("secret link state", "active"))

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return []
        return ["item", "expires", "note", "created", "created_by", "revoked_at", "request"]

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        form.user = request.user  # who makes it, for the form's service call
        return form

    def has_change_permission(self, request, obj=None) -> bool:
        return False if obj is not None else super().has_change_permission(request, obj)

    def save_model(self, request, obj: AccessLink, form, change) -> None:
        """Made already by the form (LinkForm): show its URL, this once."""
        if change or not form.token:
            return
        url = links.secret_link_url(obj.item.ibi, form.token, base_url(request))
        messages.warning(request, format_html(
            "{} {}", _("The link, shown this once (only a hash of it is kept):"),
            format_html('<a href="{0}">{0}</a>', url)))

    @admin.action(description=_("Revoke the selected links"))
    def revoke(self, request, queryset) -> None:
        for link in queryset:
            services.revoke_link(link=link)
        self.message_user(request, ngettext("%(count)d link revoked.",
                                            "%(count)d links revoked.", queryset.count())
                          % {"count": queryset.count()})


@admin.register(AccessRead)
class AccessReadAdmin(ReadOnlyAdmin):
    """The audit trail: who read which closed file, when."""

    list_display = ["at", "item", "file_name", "who", "link"]
    list_filter = ["at"]
    search_fields = ["item__ibi", "item__title", "file_name", "who"]
    date_hierarchy = "at"
