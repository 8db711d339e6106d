"""/accounts/orcid/: signing in with ORCID (issue 36, 2), offered only when the settings name
a client (archive/accounts/orcid.py `configured`; a 404 otherwise).

- login/: to ORCID's authorization page, the state kept in the session (with where to go
  next, and the "connect your ORCID iD" link being followed, if any);
- callback/: back from ORCID: the state checked and dropped (a second use is a mismatch), the
  code traded for the iD; then the invitation used, the iD linked to the person signed in,
  or the person signed in as the account the iD is linked to (or one made for it);
- connect/<token>/: the link mailed to a creator: what it connects, and the way to ORCID.

Every refusal (a state that does not match, a code ORCID refuses — replayed, another
client's —, an iD other than the invitation's) is a translated page with its status, and
nothing changed. The pages are the person's own: never cached, no Referrer, no index.
"""
from __future__ import annotations

from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import login as sign_in
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.crypto import constant_time_compare
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_safe

from ..accounts import invitations, orcid, services
from ..models import Identity
from ..refusals import Refusal
from ..web.addresses import base_url
from .accounts import _private

PENDING = "orcid_pending"  # the session's sign-in under way: state, next, invitation
BACKEND = "archive.accounts.backends.EmailBackend"


class StateMismatch(Refusal):
    message = gettext_lazy("this answer from ORCID is not for the sign-in this browser "
                           "started (or it was used already): start again")


class Declined(Refusal):
    status = 403
    message = gettext_lazy("the sign-in with ORCID was not allowed: nothing was changed")


def _client() -> orcid.Client:
    client = orcid.configured()
    if client is None:
        raise Http404("ORCID sign-in is not set up")
    return client


def _refused(request: HttpRequest, exc: Refusal) -> HttpResponse:
    return _private(render(request, "archive/accounts/orcid_refused.html",
                           {"reason": str(exc)}, status=exc.status))


def _redirect_uri(request: HttpRequest) -> str:
    return base_url(request) + reverse("archive:orcid_callback")


@require_safe
def login(request: HttpRequest) -> HttpResponse:
    client = _client()
    token, following = request.GET.get("connect", ""), request.GET.get("next", "")
    if not url_has_allowed_host_and_scheme(following, {request.get_host()},
                                           require_https=request.is_secure()):
        following = ""
    if token:
        try:
            invitation = invitations.read(token)
        except Refusal as exc:
            return _refused(request, exc)
        # Back to the work whose creator's iD it connects, unless the link said where.
        following = following or reverse("archive:item", args=[invitation.item.ibi])
    url, state = orcid.authorization_url(client, _redirect_uri(request))
    request.session[PENDING] = {"state": state, "next": following, "connect": token}
    return _private(redirect(url))


@require_safe
def callback(request: HttpRequest) -> HttpResponse:
    client = _client()
    pending = request.session.pop(PENDING, None) or {}
    try:
        if not pending.get("state") or not constant_time_compare(
                request.GET.get("state", ""), pending["state"]):
            raise StateMismatch()
        if "error" in request.GET or not request.GET.get("code"):
            raise Declined()
        found = orcid.exchange(client, request.GET["code"], _redirect_uri(request))
        signed_in = request.user if request.user.is_authenticated else None
        attributes = {"name": found.name, "email": found.email}
        if pending.get("connect"):
            user = invitations.connect(token=pending["connect"], sign_in=found,
                                       issuer=client.base_url, user=signed_in)
        elif signed_in is not None:
            services.link_identity(user=signed_in, provider=Identity.Provider.ORCID,
                                   issuer=client.base_url, subject=found.orcid,
                                   attributes=attributes)
            user = signed_in
        else:
            user = services.sign_in_external(
                provider=Identity.Provider.ORCID, issuer=client.base_url,
                subject=found.orcid, email=found.email, email_verified=bool(found.email),
                name=found.name, attributes=attributes)
    except Refusal as exc:
        return _refused(request, exc)
    if signed_in is None:
        sign_in(request, user, backend=BACKEND)
    messages.success(request, _("Your ORCID iD %(orcid)s is connected: it shows as "
                                "authenticated on the works that name it.")
                     % {"orcid": found.orcid})
    return redirect(pending.get("next") or "archive:account")


@require_safe
def connect(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to a creator: the work and the iD it connects, and a button to ORCID."""
    _client()
    try:
        invitation = invitations.read(token)
    except Refusal as exc:
        return _refused(request, exc)
    return _private(render(request, "archive/accounts/orcid_connect.html", {
        "invitation": invitation, "item": invitation.item,
        "login": reverse("archive:orcid_login") + "?" + urlencode({"connect": token})}))
