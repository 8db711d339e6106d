"""For ItemAdmin: "Connect your ORCID iD" (issue 36, 2): a page, reached by a button on the
item's page, that mails a creator of the item whose ORCID iD is not authenticated yet a
one-time link to confirm it by signing in with ORCID (accounts/invitations.py). The mail is
owed in the same transaction and sent after it (kept and tried again when a mail server
refuses)."""
from __future__ import annotations

from django import forms
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import get_language, gettext_lazy
from django.utils.translation import gettext as _

from ..accounts import invitations, selectors, tasks
from ..models import Item
from ..refusals import Refusal
from ..web import nudges
from ..web.addresses import base_url


class InvitationForm(forms.Form):
    orcid = forms.ChoiceField(label=gettext_lazy("Creator"))
    email = forms.EmailField(label=gettext_lazy("The creator's email address"),
                             max_length=254, help_text=gettext_lazy(
                                 "The link is mailed here; it works once."))

    def __init__(self, *args, creators: list[tuple[str, str]], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["orcid"].choices = [(orcid, f"{name} ({orcid})")
                                        for name, orcid in creators]


def unconfirmed_creators(item: Item) -> list[tuple[str, str]]:
    """(name, iD) of the item's creators whose ORCID iD is not authenticated."""
    creators = [(v.value, v.orcid) for v in item.dc_values.filter(element="creator")
                .order_by("position", "id") if v.orcid]
    authenticated = selectors.authenticated_orcids(orcid for _, orcid in creators)
    return [(name, orcid) for name, orcid in creators if orcid not in authenticated]


class OrcidInvitationMixin:
    def get_urls(self):
        return [path("<int:object_id>/orcid/", self.admin_site.admin_view(self.orcid_view),
                     name="archive_item_orcid"), *super().get_urls()]

    def orcid_view(self, request: HttpRequest, object_id: int) -> HttpResponse:
        item = get_object_or_404(Item, pk=object_id)
        if not self.has_change_permission(request, item):
            raise PermissionDenied
        creators = unconfirmed_creators(item)
        form = InvitationForm(request.POST or None, creators=creators)
        status = 200
        if request.method == "POST":
            status = 400
            if form.is_valid():
                try:
                    with transaction.atomic():
                        invitations.invite(item=item, orcid=form.cleaned_data["orcid"],
                                           email=form.cleaned_data["email"],
                                           sent_by=request.user, base=base_url(request),
                                           language=get_language() or "")
                        transaction.on_commit(lambda: nudges.soon(tasks.mail_account_mails))
                except Refusal as exc:
                    form.add_error(None, str(exc))
                else:
                    self.message_user(request, _("The link to connect the ORCID iD is "
                                                 "mailed to %(email)s.")
                                      % {"email": form.cleaned_data["email"]})
                    return HttpResponseRedirect(
                        reverse("admin:archive_item_change", args=[item.pk]))
        return TemplateResponse(request, "admin/archive/item/orcid.html", {
            **self.admin_site.each_context(request), "form": form, "item": item,
            "creators": creators, "opts": self.model._meta,
            "title": _("Connect a creator's ORCID iD")}, status=status)
