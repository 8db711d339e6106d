"""The metadata registry in the admin: librarians see DSpace's fields and add their own
(registry/services.py checks and writes; a field with values keeps its name)."""
from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import models

from ..models import MetadataField, MetadataSchema
from ..refusals import Refusal
from ..registry import services


class _ServiceChecked(forms.ModelForm):
    """The form's errors are the service's refusals (the name taken, a field with values
    renamed), shown before anything is saved."""

    def _post_clean(self) -> None:
        super()._post_clean()
        if self.errors:
            return
        if isinstance(self.instance, MetadataField) and self.instance.pk is not None:
            try:
                services.field_check(field=self.instance)
            except Refusal as exc:
                self.add_error(None, str(exc))


@admin.register(MetadataSchema)
class MetadataSchemaAdmin(admin.ModelAdmin):
    list_display = ["name", "namespace"]
    search_fields = ["name", "namespace"]
    # A namespace typed without its scheme is read as https:// (Django 6's default, today).
    formfield_overrides = {models.URLField: {"assume_scheme": "https"}}

    def save_model(self, request, obj, form, change) -> None:
        services.schema_save(schema=obj)


@admin.register(MetadataField)
class MetadataFieldAdmin(admin.ModelAdmin):
    form = _ServiceChecked
    list_display = ["__str__", "label", "dc_element", "scope_note"]
    list_filter = ["schema"]
    search_fields = ["element", "qualifier", "scope_note", "label_en", "label_pt_br"]
    list_select_related = ["schema"]

    def save_model(self, request, obj, form, change) -> None:
        services.field_save(field=obj)
