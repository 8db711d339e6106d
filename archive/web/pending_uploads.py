"""The files waiting for a deposit or a submission (archive/deposit/pending.py): the widget
that lists them, with the uploader (static/archive/uploader.js, tus, resumable) that adds more,
and the field that reads their ids back: the admin's item form's, and the submitter's form's
(archive/site/submit.py)."""
from __future__ import annotations

import uuid

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext_lazy as _


class PendingUploadsInput(forms.Widget):
    """The files waiting for this deposit, each a ticked box (unticked, it is left out) with
    its name, size and a remove button; and the uploader's settings and words for
    static/archive/uploader.js, which uploads dropped or chosen files here (tus, resumable),
    each with its progress bar. Without JavaScript, the boxes alone."""

    uploads: list = []

    def value_from_datadict(self, data, files, name) -> list[str]:
        return data.getlist(name) if hasattr(data, "getlist") else list(data.get(name) or [])

    def render(self, name, value, attrs=None, renderer=None) -> str:
        base = (attrs or {}).get("id") or f"id_{name}"
        rows = format_html_join("", (
            '<li class="ibi-upload" data-url="{}"><input type="checkbox" name="{}" value="{}" '
            'id="{}_{}" checked> <label for="{}_{}">{}</label> <span class="ibi-size">{}'
            '</span> <button type="button" class="button ibi-remove" hidden>{}</button></li>'),
            ((reverse("api:upload", args=[u.id]), name, u.id, base, n, base, n, u.name,
              filesizeformat(u.length), _("Remove"))
             for n, u in enumerate(self.uploads)))
        words = {"drop": _("Drop files here, or choose them:"), "remove": _("Remove"),
                 "uploading": _("uploading"), "uploaded": _("uploaded"),
                 "failed": _("upload failed:"),
                 "wait": _("The form is sent as soon as every file is uploaded.")}
        return format_html(
            '<div class="ibi-uploader" id="{}" data-endpoint="{}" data-chunk-size="{}" {}>'
            '<ul class="ibi-uploads">{}</ul><p class="ibi-upload-status" role="status"></p>'
            "</div>", base, reverse("api:uploads"), settings.IBI_UPLOAD_CHUNK_SIZE,
            format_html_join(" ", 'data-text-{}="{}"', words.items()), rows)


class PendingUploadsField(forms.Field):
    """Ids of pending uploads (archive/deposit/pending.py): the form resolves them as its
    user's own, complete ones."""

    widget = PendingUploadsInput

    def clean(self, value) -> list[str]:
        ids = []
        for text in value or []:
            try:
                ids.append(str(uuid.UUID(str(text))))
            except ValueError:
                raise forms.ValidationError(_("no such upload")) from None
        return ids
