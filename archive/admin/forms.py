"""The librarian's deposit form: several files at once, Dublin Core, links.

It validates, as Django's UserCreationForm does: its fields, then the services' own checks
without writing (services.item_deposit_check, item_change_check) in `_post_clean`. The write
is `save_deposit`'s, which ItemAdmin.save_model calls (archive/admin/items.py).
"""
from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.html import format_html, format_html_join
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext_lazy as _

from ..communities import services as tree
from ..deposit import idempotency, limits, pending, selectors, services, storage
from ..metadata import vocabularies
from ..metadata.languages import language_name
from ..models import DC_ELEMENTS, AccessRights, Collection, DcElement, Item
from ..profiles.check import Entry, ProfileRefusal
from ..refusals import Conflict, Refusal
from ..web import profile_fields
from ..web.pending_uploads import PendingUploadsField


def _plain(value):
    """A cleaned value as JSON holds it, for a fingerprint: an item by its id, a date (or
    anything else) as its text."""
    if isinstance(value, Item):
        return value.pk
    if isinstance(value, list | tuple):
        return [_plain(part) for part in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Django's documented multiple-file pattern; cleans to a list, [] when nothing was sent."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None) -> list:
        single_file_clean = super().clean
        if isinstance(data, list | tuple):
            result = [single_file_clean(d, initial) for d in data]
        else:
            result = [single_file_clean(data, initial)] if data else []
        result = [f for f in result if f]
        if self.required and not result:
            raise forms.ValidationError(self.error_messages["required"], code="required")
        return result


def dc_field_name(element: str) -> str:
    return f"dc_{element}"


# One textarea per Dublin Core element, one value per line: the whole deposit is then a single
# form, so it reaches the services in one call and a refused deposit never leaves half an item.
DublinCoreFields = type("DublinCoreFields", (forms.Form,), {
    dc_field_name(element): forms.CharField(
        label=DcElement(element).label, required=False, help_text=_("one value per line"),
        widget=forms.Textarea(attrs={"rows": 2, "cols": 60}))
    for element in DC_ELEMENTS
})

# Type and rights are chosen from controlled vocabularies (metadata/vocabularies.py, where the
# formats read them too): the choice is stored as its URI. Any other value, e.g. one deposited
# as free text before, is kept and edited beside the choice, so nothing stored is lost.
CONTROLLED = ("type", "rights")


def other_field_name(element: str) -> str:
    return f"dc_{element}_other"


def type_choices() -> list[tuple[str, str]]:
    return [("", "—"), *((uri, gettext_lazy(label)) for uri, label in vocabularies.TYPE_CHOICES)]


def licence_choices() -> list[tuple[str, str]]:
    return [("", "—"), *((licence.uri, gettext_lazy(licence.label))
                         for licence in vocabularies.LICENCES)]


def split_controlled(element: str, stored: list[str]) -> tuple[str, list[str]]:
    """(the choice, the other values) of an element's stored values: the first value that
    names a choice of the vocabulary is the choice, the rest are kept as written."""
    choice, others = "", []
    for value in stored:
        if element == "type":
            named = vocabularies.type_choice_of(value)
        else:
            licence = vocabularies.licence_of(value)
            named = licence.uri if licence is not None else None
        if named and not choice:
            choice = named
        else:
            others.append(value)
    return choice, others


# Common languages offered as the librarian types a tag, named in the librarian's language;
# any other valid BCP 47 tag may be typed.
COMMON_LANGUAGES = ("pt-BR", "pt-PT", "en", "es", "fr", "de", "it", "la", "gn", "zh", "ja",
                    "ru", "ar")


class LanguageInput(forms.TextInput):
    """A text box for a BCP 47 tag with a list of common languages (an HTML datalist): a
    choice for the usual ones, free entry for any other."""

    def render(self, name, value, attrs=None, renderer=None) -> str:
        list_id = f"{(attrs or {}).get('id') or name}-list"
        reader = get_language() or settings.LANGUAGE_CODE
        box = super().render(name, value, {**(attrs or {}), "list": list_id}, renderer)
        options = format_html_join("", '<option value="{}">{}</option>', (
            (tag, language_name(tag, reader)) for tag in COMMON_LANGUAGES))
        return format_html('{}<datalist id="{}">{}</datalist>', box, list_id, options)


# A creator line may end with its ORCID iD after a bar: "Banon, Gerald | 0000-0002-1825-0097".
ORCID_SEPARATOR = "|"


def creator_lines(values: list[tuple[str, str]]) -> str:
    """The creator textarea's text of (name, ORCID iD) pairs, one per line."""
    return "\n".join(f"{name} {ORCID_SEPARATOR} {orcid}" if orcid else name
                     for name, orcid in values)


class ItemAdminForm(DublinCoreFields, forms.ModelForm):
    upload = MultipleFileField(
        label=_("Files"), required=False,
        error_messages={"required": _("Choose one or more files.")},
        help_text=_("choose one or more files; names are reduced to a bare file name; none "
                    "for a metadata-only record (a print-only thesis catalogued)"))
    pending = PendingUploadsField(
        label=_("Files to deposit"), required=False,
        help_text=_("kept until saved, even when the form is sent back; untick one or remove "
                    "it to leave it out"))
    dc_type = forms.ChoiceField(
        label=DcElement.TYPE.label, required=False, choices=type_choices,
        help_text=_("the kind of work (COAR resource types)"))
    dc_type_other = forms.CharField(
        label=_("Other types"), required=False,
        help_text=_("one value per line; kept as written"),
        widget=forms.Textarea(attrs={"rows": 1, "cols": 60}))
    dc_rights = forms.ChoiceField(
        label=DcElement.RIGHTS.label, required=False, choices=licence_choices,
        help_text=_("the licence or rights statement, stored as its URL"))
    dc_rights_other = forms.CharField(
        label=_("Other rights"), required=False,
        help_text=_("one value per line; kept as written"),
        widget=forms.Textarea(attrs={"rows": 1, "cols": 60}))
    dc_date = forms.CharField(
        label=DcElement.DATE.label, required=False,
        help_text=_("ISO 8601: a year, a month, a day or an interval, e.g. 2013, 2013-09, "
                    "2013-09-04, 2013/2014; one per line"),
        widget=forms.Textarea(attrs={"rows": 1, "cols": 60}))

    # Chosen among the item's files and those waiting in the form (uploader.js offers each
    # as its upload finishes): a name that is none of them is this field's error.
    restricted_files = forms.MultipleChoiceField(
        label=_("Restricted files"), required=False, widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": _("%(value)s is not one of the files")},
        help_text=_("closed to the public even when the item is open (a public article with "
                    "a restricted dataset); each file is offered once uploaded"))

    class Meta:
        model = Item
        fields = ["title", "language", "target_file", "transferable", "previous_edition",
                  "translation_of", "access_rights", "embargo_until", "access_reason",
                  "collection", "mapped_collections"]
        widgets = {"language": LanguageInput(attrs={"size": 20, "autocomplete": "off"}),
                   "target_file": forms.Select()}
        help_texts = {
            "target_file": _("the file a persistent URL opens: one of the files; "
                             "default: the first"),
            "language": _("the original language, as a BCP 47 tag: pick one or type any tag, "
                          "e.g. pt-BR"),
            "transferable": _("unticked: this Original never migrates to another Archive"),
            "embargo_until": _("with embargoed only: the first day the files open to all "
                               "(YYYY-MM-DD); the item opens itself that day"),
            "access_reason": _("why the files are not open, e.g. a patent pending; shown "
                               "on the landing page"),
        }

    LINKS = ("previous_edition", "translation_of")
    # The librarian, set by ItemAdmin.get_form: the owner of the pending uploads.
    user = None
    # The fields of the collection's submission profile, set by ItemAdmin.get_form (which
    # adds a form field for each that is not a classic element's: profile_fields.py).
    profile_entries: tuple[Entry, ...] = ()
    stored: list | tuple = ()  # the item's values, read once (_profile_fields)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.adding = self.instance.pk is None
        self._profile_fields()
        self._unknown_links = self._links_by_ibi()
        self.pending = self._pending()
        if "upload" in self.fields:  # a file is required by clean(), but for metadata only
            self.fields["upload"].required = False
        if "collection" in self.fields:  # none chosen: the default one, or where it is
            self.fields["collection"].required = False
        if "access_rights" in self.fields:
            self.fields["access_rights"].required = False
            if self.adding:  # left as it is, the deposit gets its collection's default
                self.fields["access_rights"].choices = [
                    ("", _("the collection's default")), *AccessRights.choices]
                self.initial.setdefault("access_rights", "")
        self._show_files()
        creator = self.fields.get(dc_field_name("creator"), forms.Field())
        creator.help_text = _("one per line; an ORCID iD after a bar: "
                              "Banon, Gerald | 0000-0002-1825-0097")
        if not self.adding:
            self.initial["restricted_files"] = [
                f.name for f in self.instance.files.all() if f.restricted]
            # The values of dc.<element> itself: a qualified field's (dc.contributor.advisor)
            # are not this element's, which saving the form replaces.
            plain: dict[str, list] = {}
            for v in self.instance.dc_values.filter(field__schema__name="dc",
                                                    field__qualifier="").order_by("position", "id"):
                plain.setdefault(v.element, []).append(v)
            for element in DC_ELEMENTS:
                self.initial.setdefault(dc_field_name(element),
                                        "\n".join(v.value for v in plain.get(element, ())))
            self.initial[dc_field_name("creator")] = creator_lines(
                [(v.value, v.orcid) for v in plain.get("creator", ())])
            for element in CONTROLLED:
                choice, others = split_controlled(
                    element, [v.value for v in plain.get(element, ())])
                self.initial[dc_field_name(element)] = choice
                self.initial[other_field_name(element)] = "\n".join(others)

    def _profile_fields(self) -> None:
        """The classic elements the profile lacks left out (saving leaves their values as
        they are), the profile's own fields filled from the item's values."""
        entries = list(self.profile_entries)
        if not entries:
            return
        plain = set(profile_fields.plain_elements(entries))
        for element in DC_ELEMENTS:
            if element not in plain:
                self.fields.pop(dc_field_name(element), None)
                self.fields.pop(other_field_name(element), None)
        for entry in entries:  # a classic element's field says what the profile asks of it
            field = self.fields.get(dc_field_name(entry.name[3:]))
            if entry.name[3:] in plain and field is not None:
                field.required = entry.required
                field.help_text = entry.help or field.help_text
        self.stored = [] if self.adding else list(
            self.instance.dc_values.select_related("field__schema").order_by("position", "id"))
        if not self.adding:
            self.initial.update(profile_fields.initial(entries, self.stored))

    def _clean_profile_fields(self, cleaned: dict) -> None:
        """Each own field's text read as qualified values (an authority id checked, a date's
        form), or its error."""
        kept_dates = () if self.adding else {v.value for v in self.stored}
        for entry in profile_fields.own_entries(list(self.profile_entries)):
            name = profile_fields.field_name(entry)
            if name not in cleaned:
                continue
            try:
                cleaned[name] = profile_fields.clean(entry, cleaned[name], kept_dates)
            except forms.ValidationError as exc:
                self.add_error(name, exc)

    def _profile_values(self) -> dict[str, list]:
        """The own fields' values by registry field, with the stored ones they do not show."""
        data, entries = self.cleaned_data, list(self.profile_entries)
        dc: dict[str, list] = {}
        given = set()
        for entry in profile_fields.own_entries(entries):
            values = data.get(profile_fields.field_name(entry)) or []
            dc.setdefault(entry.name, []).extend(values)
            if values:
                given.add(entry)
        if not self.adding:
            for name, entry, value in profile_fields.kept(entries, self.stored):
                if entry is None or entry.repeatable or entry not in given:
                    dc.setdefault(name, []).append(value)
        return dc

    def _pending(self) -> list:
        """The user's complete pending uploads this form names (unknown ids are dropped: an
        expired or removed upload is simply no longer there)."""
        if not self.is_bound or "pending" not in self.fields or self.user is None:
            return []
        ids = self.fields["pending"].widget.value_from_datadict(self.data, self.files,
                                                                self.add_prefix("pending"))
        found = []
        for upload_id in ids:
            try:
                found += pending.complete_of(self.user, [upload_id])
            except pending.PendingError:
                continue
        return found

    def _show_files(self) -> None:
        """The pending uploads listed, and the main file and the restricted ones chosen among
        every file's name (the files sent with the form too, for the restricted ones)."""
        if "pending" in self.fields:
            self.fields["pending"].widget.uploads = list(self.pending)
        names = [] if self.adding else list(
            self.instance.files.order_by("name").values_list("name", flat=True))
        names += [u.name for u in self.pending if u.name not in names]
        if "restricted_files" in self.fields:
            sent = []
            for file in self.files.getlist(self.add_prefix("upload")) if self.files else ():
                try:
                    sent.append(storage.safe_name(file.name))
                except storage.FileNameError:
                    continue  # the upload field's error
            self.fields["restricted_files"].choices = [
                (n, n) for n in dict.fromkeys([*names, *sent])]
        if "target_file" in self.fields:
            first = _("— the first file —") if self.adding else _("— none —")
            widget = self.fields["target_file"].widget
            widget.choices = [("", first), *((n, n) for n in names)]
            widget.attrs.pop("maxlength", None)  # a text box's attribute, not a list's

    def _links_by_ibi(self) -> dict[str, str]:
        """Accept an IBI (either form) typed where the pickers send an item's number.

        Anything else that is not a number is cleared, with an error kept for clean(): the
        admin's picker would fail on it when the page is drawn again.
        """
        unknown = {}
        if not self.is_bound:
            return unknown
        for field in self.LINKS:
            value = (self.data.get(field) or "").strip()
            if not value or value.isdigit():
                continue
            item = selectors.item_by_ibi(value)
            self.data = self.data.copy()
            self.data[field] = str(item.pk) if item else ""
            if item is None:
                unknown[field] = value
        return unknown

    def clean_dc_creator(self) -> list[tuple[str, str]]:
        """Each line a name, or a name, a bar and an ORCID iD; a bad iD is this field's error."""
        creators = []
        for line in self.cleaned_data.get(dc_field_name("creator"), "").splitlines():
            head, bar, tail = line.rpartition(ORCID_SEPARATOR)
            name, given = (head, tail) if bar else (line, "")
            try:
                creators.append((name.strip(), services.clean_orcid(given)))
            except services.ServiceError as exc:
                raise forms.ValidationError(str(exc)) from None
        return creators

    def clean_language(self) -> str:
        """A BCP 47 tag as the services check it (a language stored before stays as is)."""
        language = self.cleaned_data.get("language", "").strip()
        if not self.adding and language == self.instance.language:
            return language
        try:
            return services.clean_language(language)
        except services.ServiceError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_dc_date(self) -> list[str]:
        """Each line an ISO 8601 / EDTF level 0 date, as the services check it; a date stored
        before may stay as it is (the services let it too)."""
        kept = set() if self.adding else set(self.instance.dc("date"))
        dates = []
        for line in self.cleaned_data.get(dc_field_name("date"), "").splitlines():
            if not line.strip():
                continue
            try:
                dates.append(line.strip() if line.strip() in kept
                             else services.clean_date(line))
            except services.ServiceError as exc:
                raise forms.ValidationError(str(exc)) from None
        return dates

    def clean_access_rights(self) -> str:
        """The level chosen; none (or a form posted by a script without it): the item's, or
        for a deposit "" (its collection's default)."""
        return self.cleaned_data.get("access_rights") or (
            "" if self.adding else self.instance.access_rights)

    def _clean_access(self, cleaned: dict) -> None:
        """The access level's rules, as the services check them, as errors of its fields."""
        if "access_rights" not in cleaned:
            return
        if not cleaned["access_rights"]:  # the collection's default, checked by the deposit
            if cleaned.get("embargo_until"):
                self.add_error("embargo_until", _("a date goes with the access level "
                                                  "embargoed only: choose it"))
            return
        try:
            services.clean_access(rights=cleaned["access_rights"],
                                  embargo_until=cleaned.get("embargo_until"),
                                  reason=cleaned.get("access_reason", ""),
                                  current=None if self.adding else self.instance)
        except services.ServiceError as exc:
            self.add_error("embargo_until" if self.data.get("embargo_until")
                           or cleaned["access_rights"] == "embargoed" else "access_rights",
                           str(exc))

    def clean(self) -> dict:
        cleaned = super().clean()
        self._clean_profile_fields(cleaned)
        self._clean_access(cleaned)
        for field, value in self._unknown_links.items():
            self.add_error(field, _("no item here has the IBI %(ibi)r") % {"ibi": value})
        existing = set() if self.adding else set(self.instance.files.values_list("name",
                                                                                 flat=True))
        names: list[str] = []
        for upload in self.pending:
            if upload.name in existing or upload.name in names:
                self.add_error("pending", _("two files would be named %(name)r")
                               % {"name": upload.name})
            names.append(upload.name)
        for upload in cleaned.get("upload") or []:
            try:
                name = storage.safe_name(upload.name)
            except storage.FileNameError as exc:
                self.add_error("upload", f"{upload.name!r}: {exc}")
                continue
            if name in existing or name in names:
                self.add_error("upload", _("two files would be named %(name)r") % {"name": name})
            try:
                limits.check_size(name, upload.size)
            except limits.LimitExceeded as exc:
                self.add_error("upload", str(exc))
            names.append(name)
        try:
            limits.check_count(len(existing) + len(names))
        except limits.LimitExceeded as exc:
            self.add_error("upload", str(exc))
        if self.adding and not names and "upload" not in self.errors \
                and not self._metadata_only(cleaned):
            self.add_error("upload", self.fields["upload"].error_messages["required"])
        if "target_file" in self.fields:
            cleaned["target_file"] = self._clean_target(cleaned.get("target_file", ""),
                                                        names, existing)
        return cleaned

    def _metadata_only(self, cleaned: dict) -> bool:
        """The deposit is metadata only, chosen or its collection's default: a record that
        may have no file (a library cataloguing a print-only thesis)."""
        level = cleaned.get("access_rights")
        if not level:
            collection = cleaned.get("collection") or tree.default_collection()
            level = services.access_of(collection).rights
        return level == AccessRights.METADATA_ONLY

    def _clean_target(self, target: str, names: list[str], existing: set[str]) -> str:
        if not target:
            return names[0] if self.adding and names else self.instance.target_file
        try:
            target = storage.safe_name(target)
        except storage.FileNameError as exc:
            self.add_error("target_file", str(exc))
            return target
        if target not in names and target not in existing:
            self.add_error("target_file", _("%(name)r is not one of the files: %(names)s") % {
                "name": target, "names": ", ".join(sorted({*names, *existing}))})
        return target

    # A deposit of the same content by the same librarian (`user`) within
    # IBI_DEPOSIT_REPEAT_WINDOW is that deposit (deposit/idempotency.py).
    repeated: Item | None = None  # the earlier item this form's deposit turned out to be
    refused_status: int | None = None
    # What the write refused when this request first sent the form (a full storage, a race
    # lost: ItemAdmin.changeform_view), set by ItemAdmin.get_form: the form's error this time.
    refusal: Refusal | None = None

    def _post_clean(self) -> None:
        # After field, form and model validation, what the services would refuse, asked
        # without writing; ItemAdmin.save_model writes once the form is valid. Django's
        # UserCreationForm validates in this hook likewise, and writes in save().
        super()._post_clean()
        if self.refusal is not None:
            self._refused(self.refusal)
        elif not self.errors:
            self._check()

    def _refused(self, refusal: Refusal) -> None:
        self.add_error(self._field_of(refusal), str(refusal))
        self.refused_status = refusal.status  # a full storage is a 507 (ItemAdmin)

    def _field_of(self, refusal: Refusal) -> str | None:
        """The form field a profile's refusal names, if the form shows it."""
        if not isinstance(refusal, ProfileRefusal):
            return None
        for entry in self.profile_entries:
            if entry.key != refusal.field:
                continue
            for name in (profile_fields.field_name(entry), dc_field_name(entry.name[3:])):
                if name in self.fields:
                    return name
        return None

    def _check(self) -> None:
        if self.adding:
            self.repeated = idempotency.repeated_deposit(self.user, self._content())
            if self.repeated is not None:
                return  # that deposit, made already: nothing to check, nothing to write
        # Files by name: a pending upload's bytes are opened only to be stored.
        names = [services.Upload(name=u.name, file=None) for u in self.pending]
        try:
            if self.adding:
                services.item_deposit_check(**self._deposit(names))
            else:
                stored = Item.objects.get(pk=self.instance.pk)  # the instance holds the edits
                services.item_change_check(item=stored, **self._change(names))
        except Refusal as exc:
            self._refused(exc)

    def save_deposit(self) -> Item:
        """Deposit, or change the item, through the services (ItemAdmin.save_model): the item,
        the earlier one when this deposit was made already. A refusal of the write (a full
        storage, a race lost) is raised, and nothing is written."""
        if self.repeated is None:
            try:
                self.instance = self._write()
            except idempotency.Raced:  # an identical deposit committed first: it is this one
                self.repeated = idempotency.repeated_deposit(self.user, self._content())
                if self.repeated is None:
                    raise Conflict(_("an identical deposit was at work at the same time and "
                                     "did not finish; send this one again")) from None
        if self.repeated is not None:  # the files the form named are the earlier deposit's
            for upload in self.pending:
                pending.terminate(upload)
            self.pending = []
            self.instance = self.repeated
        return self.instance

    def keep_uploads(self) -> None:
        """A form sent back keeps the files it carried (ItemAdmin.render_change_form): each
        becomes a pending upload, listed (ticked) when the form is drawn again, so the
        librarian never chooses it again. A file refused for itself (its name, its size) is
        not kept; its error says why. A full storage keeps nothing (its message says so): the
        files sent would take the room a deposit needs where uploads wait."""
        if self.user is None or "pending" not in self.fields or self.refused_status == 507:
            return
        names = {u.name for u in self.pending}
        for file in self.files.getlist(self.add_prefix("upload")):
            try:
                name = storage.safe_name(file.name)
                limits.check_size(name, file.size)
            except (storage.FileNameError, limits.LimitExceeded):
                continue
            if name not in names:
                try:
                    self.pending.append(pending.keep(owner=self.user, file=file))
                except OSError:  # no room where uploads wait: this one is chosen again
                    continue
                names.add(name)
        self.data = self.data.copy()
        self.data.setlist(self.add_prefix("pending"), [str(u.id) for u in self.pending])
        self._show_files()

    def _content(self) -> str:
        """The deposit as a repeat of it is recognised: every cleaned field (an item by its
        id), and the files by name and checksum (computed on the way in), the pending uploads
        too, never by their ids (deposit/idempotency.py `deposit_content`)."""
        fields = {name: _plain(value) for name, value in self.cleaned_data.items()
                  if name not in ("upload", "pending")}
        files = [(f.name, getattr(f, "sha256", "")) for f in self.cleaned_data.get("upload")
                 or []] + [(u.name, u.sha256) for u in self.pending]
        return idempotency.deposit_content(self.user, fields, files, [])

    def _dublin_core(self) -> dict[str, list]:
        data = self.cleaned_data
        dc = {element: data[dc_field_name(element)] if element in ("creator", "date")
              else data[dc_field_name(element)].splitlines() for element in DC_ELEMENTS
              if dc_field_name(element) in data}
        for element in CONTROLLED:  # the choice first, then the other values as written
            if dc_field_name(element) in data:
                chosen = [data[dc_field_name(element)]] if data[dc_field_name(element)] else []
                others = data.get(other_field_name(element), "").splitlines()
                dc[element] = chosen + [v for v in others if v.strip() not in chosen]
        return dc | self._profile_values()

    def _uploads(self, waiting: list[services.Upload]) -> list[services.Upload]:
        """The pending uploads, then the files sent with the form; the browser's type is a
        hint the deposit weighs, as the API's (deposit.content_types)."""
        return waiting + [services.Upload(name=f.name, file=f, content_type=f.content_type or "")
                          for f in self.cleaned_data.get("upload") or []]

    def _access(self) -> services.Access | None:
        data = self.cleaned_data
        if not data["access_rights"]:
            return None  # the collection's default (services.access_of)
        return services.Access(data["access_rights"], data.get("embargo_until"),
                               data.get("access_reason", ""))

    def _deposit(self, waiting: list[services.Upload]) -> dict:
        """item_deposit's arguments (and item_deposit_check's)."""
        data = self.cleaned_data
        return {"title": data["title"], "uploads": self._uploads(waiting),
                "target_file": data["target_file"], "language": data["language"],
                "previous_edition": data.get("previous_edition"),
                "translation_of": data.get("translation_of"), "dc": self._dublin_core(),
                "transferable": data["transferable"], "access": self._access(),
                "restricted_files": data.get("restricted_files") or (),
                "collection": data.get("collection"), "by_profile": True}

    def _change(self, waiting: list[services.Upload]) -> dict:
        """item_change_check's arguments: what the change writes (`_write`)."""
        data = self.cleaned_data
        return {"uploads": self._uploads(waiting), "dc": self._dublin_core(),
                "access": self._access(), "restricted_files": data.get("restricted_files"),
                "by_profile": True, "collection": data.get("collection"),
                **{name: data[name] for name in ("title", "language", "target_file",
                                                  "translation_of", "transferable")
                   if name in data}}

    def _write(self) -> Item:
        with pending.opened(self.pending) as waiting:
            if self.adding:
                content = self._content()

                def remember(item: Item) -> None:
                    idempotency.remember_deposit(self.user, content, item)
                item = services.item_deposit(**self._deposit(waiting),
                                             on_saved=pending.consumed(self.pending, remember))
                self._place(item)
                return item
            change = self._change(waiting)
            item, uploads = self.instance, change.pop("uploads")
            if uploads:
                services.item_add_files(item=item, uploads=uploads,
                                        on_saved=pending.consumed(self.pending))
            self.pending = []
        access, restricted = change.pop("access"), change.pop("restricted_files")
        services.item_update(item=item, **change)
        self._place(item)
        return services.item_set_access(
            item=item, rights=access.rights, embargo_until=access.embargo_until,
            reason=access.reason, restricted_files=restricted)

    def _place(self, item: Item) -> None:
        """The item moved to its collection and mapped into the others chosen (the tree's
        services; ItemAdmin.save_related leaves the mapping to them)."""
        data = self.cleaned_data
        if data.get("collection") is not None and data["collection"].pk != item.collection_id:
            tree.item_move(item=item, collection=data["collection"])
        if "mapped_collections" in data:
            tree.item_map(item=item, collections=data["mapped_collections"])


class CollectionChoiceForm(forms.Form):
    """The collection of the item list's "move to" and "map into" actions (ItemAdmin)."""

    collection = forms.ModelChoiceField(
        label=_("Collection"), queryset=Collection.objects.select_related("community")
        .order_by("name_pt_br", "pk"))
