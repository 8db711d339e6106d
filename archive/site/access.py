"""Closed files and requests for a copy (archive/access/): the page a closed file answers
(403: what the item's level is, and how to ask; never the file's name, size or checksum), and
/items/<repository name>/request, where a reader without an account asks for a copy.

The request form: CSRF-protected (Django's middleware), at most IBI_ACCESS_REQUESTS per client
address (FailureThrottle "access_request": 429 with Retry-After past it), with a privacy
notice that says what is kept and for what. A sent form answers by a redirect to the same
page, which then says the request was sent (a reload sends nothing twice).
"""
from __future__ import annotations

from django import forms
from django.conf import settings
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from ..access import policy, services, tasks
from ..deposit import selectors
from ..models import Item
from ..refusals import Refusal
from ..web import nudges, readers
from ..web.addresses import base_url
from ..web.errors import too_many
from ..web.throttling import FailureThrottle


def _private(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    patch_cache_control(response, private=True)
    response["Referrer-Policy"] = "same-origin"
    return response


def _asks(item: Item) -> bool:
    """Whether a request for a copy could open anything of the item."""
    return not item.is_deleted and policy.opens_by_link(
        item.access_rights, [f.restricted for f in item.files.all()])


def closed(request: HttpRequest, item: Item, reading: readers.Reading) -> HttpResponse:
    """403 (429 when wrong tokens from this address are throttled): this file is not open to
    this reader; the item's level, its landing page, where to ask for a copy, and what is
    wrong with the secret link the request carried, if any."""
    landing = reverse("archive:item", args=[item.ibi])
    # Nothing of the address asked is written back (the language switcher returns to the
    # landing page): the page is the same for a name held and one not.
    context = {"item": item, "refused": reading.refused, "landing_url": landing,
               "language_next": landing,
               "request_url": (reverse("archive:item_request", args=[item.ibi])
                               if _asks(item) else "")}
    response = render(request, "archive/access/closed.html", context,
                      status=429 if reading.retry_after else 403)
    if reading.retry_after:
        too_many(reading.retry_after, response)
    return _private(response)


class RequestForm(forms.Form):
    name = forms.CharField(label=_("Your name"), max_length=200)
    email = forms.EmailField(label=_("Your email address"), max_length=254)
    reason = forms.CharField(label=_("Why you need the files"), max_length=2000,
                             widget=forms.Textarea(attrs={"rows": 5, "cols": 60}),
                             help_text=_("The librarians read it to decide."))

    # The services' rules for a request's text (no control or bidirectional formatting
    # character: what a librarian reads is what was written), as errors of their fields.
    def _checked(self, field: str, *, lines: bool) -> str:
        try:
            return services.clean_text(self.fields[field].label, self.cleaned_data[field],
                                       self.fields[field].max_length, lines=lines)
        except Refusal as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_name(self) -> str:
        return self._checked("name", lines=False)

    def clean_reason(self) -> str:
        return self._checked("reason", lines=True)


def item_request(request: HttpRequest, ibi: str) -> HttpResponse:
    """GET: the form (or, after a request was sent, its confirmation); POST: the request."""
    item = selectors.item_by_ibi(ibi, selectors.with_details(selectors.public_items()))
    if item is None:
        raise Http404(_("No item has this IBI."))
    if ibi != item.ibi:
        return redirect(reverse("archive:item_request", args=[item.ibi]), permanent=True)
    context = {"item": item, "landing_url": reverse("archive:item", args=[item.ibi]),
               "asks": _asks(item), "keep_days": settings.IBI_ACCESS_REQUEST_DAYS}
    if request.method == "POST" and context["asks"]:
        return _send(request, item, context)
    if request.method not in ("GET", "HEAD", "POST"):
        response = HttpResponse(status=405)
        response["Allow"] = "GET, HEAD, POST"
        return response
    context.update(form=RequestForm(), sent="sent" in request.GET)
    return _private(render(request, "archive/access/request.html", context,
                           status=200 if context["asks"] else 404))


def _send(request: HttpRequest, item: Item, context: dict) -> HttpResponse:
    throttle = FailureThrottle("access_request")
    wait = throttle.retry_after(request)
    if wait is not None:
        context.update(form=RequestForm(request.POST), throttled=True)
        return too_many(wait, _private(render(request, "archive/access/request.html",
                                              context, status=429)))
    form = RequestForm(request.POST)
    throttle.record(request)  # every request sent counts, one the form refuses too: a flood
    if form.is_valid():
        try:
            services.request_access(item=item, language=get_language() or "",
                                    base=base_url(request), **form.cleaned_data)
        except Refusal as exc:
            form.add_error(None, str(exc))
        else:
            # The librarians' notice, off the reader's thread (web/nudges.py).
            transaction.on_commit(lambda: nudges.soon(tasks.mail_request_notices))
            return redirect(reverse("archive:item_request", args=[item.ibi]) + "?sent")
    context.update(form=form, sent=False)
    return _private(render(request, "archive/access/request.html", context, status=400))
