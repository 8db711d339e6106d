"""Admin page of the resolver: register Archives (RTC-11 §7.1), see who is switched on.

Registration is the administrative act of the standard: the archive service IBI and the
registration key the Archive's administrator chose. The key is typed once, hashed at once
(`resolver_service.hash_key`) and never shown, logged or kept in an error report. The Archive
switches itself on and off (inclusionRequest / exclusionRequest); the administrator may only
switch an Archive off here, e.g. one under suspicion.
"""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.decorators import method_decorator
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.debug import sensitive_post_parameters

from ..models import RegisteredArchive
from ..resolver import report
from ..resolver import service as resolver_service


# The model's field names for people (a verbose_name would be a migration).
class RegisteredArchiveForm(forms.ModelForm):
    registration_key = forms.CharField(
        label=_("Registration key"), required=False, strip=True, max_length=200,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        help_text=_("Table 7.1: 10 or more digits, optionally '-' and 10 or more digits "
                    "(e.g. 1234567890-1234567890). Stored hashed; leave empty to keep the "
                    "current key."))

    class Meta:
        model = RegisteredArchive
        fields = ["archive_service_ibi", "email"]

    def clean_archive_service_ibi(self) -> str:
        try:
            text = resolver_service.canonical_ibi(self.cleaned_data["archive_service_ibi"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        found = resolver_service.registered(text)
        if found is not None and found.pk != self.instance.pk:
            raise forms.ValidationError(_("This archive service IBI is registered already."))
        return text

    def clean_registration_key(self) -> str:
        key = self.cleaned_data["registration_key"]
        if not key and self.instance.pk is None:
            raise forms.ValidationError(_("A new Archive needs its registration key."))
        if key and not resolver_service.valid_key(key):
            raise forms.ValidationError(_("Not a key of Table 7.1: 10 or more digits, "
                                          "optionally '-' and 10 or more digits."))
        return key

    def save(self, commit: bool = True) -> RegisteredArchive:
        archive = super().save(commit=False)
        if self.cleaned_data["registration_key"]:
            archive.key_hash = resolver_service.hash_key(self.cleaned_data["registration_key"])
        if commit:
            archive.save()
        return archive


@admin.register(RegisteredArchive)
class RegisteredArchiveAdmin(admin.ModelAdmin):
    form = RegisteredArchiveForm
    list_display = ["archive_service_ibi", "included", "address", "included_at", "excluded_at"]
    list_filter = ["included"]
    search_fields = ["archive_service_ibi", "address", "email"]
    readonly_fields = ["address", "ip", "platform_version", "included", "included_at",
                       "excluded_at", "registered_at"]
    empty_value_display = "—"
    fieldsets = [
        (None, {"fields": ["archive_service_ibi", "registration_key", "email"]}),
        (_("Switched on by the Archive (inclusionRequest)"), {"fields": [
            "included", "address", "ip", "platform_version", "included_at", "excluded_at",
            "registered_at"]}),
    ]
    actions = ["switch_off"]

    def get_urls(self):
        return [path("federation/", self.admin_site.admin_view(self.federation_view),
                     name="archive_registeredarchive_federation"), *super().get_urls()]

    def federation_view(self, request: HttpRequest) -> HttpResponse:
        """Every included Archive: address, last answer, median time, failures, breaker
        (resolver/report.py; `manage.py federation` prints the same)."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        return TemplateResponse(request, "admin/archive/registeredarchive/federation.html", {
            **self.admin_site.each_context(request), "opts": self.model._meta,
            "rows": report.federation(), "title": _("Federation")})

    @method_decorator(sensitive_post_parameters("registration_key"))
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return super().changeform_view(request, object_id, form_url, extra_context)

    @admin.action(description=_("Switch the selected Archives off (no longer asked)"))
    def switch_off(self, request, queryset) -> None:
        count = resolver_service.switch_off(queryset)
        self.message_user(request, ngettext("%(count)d Archive switched off.",
                                            "%(count)d Archives switched off.", count)
                          % {"count": count}, messages.SUCCESS)
