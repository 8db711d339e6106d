"""/saml/: signing in through an institution of the federation (CAFe) — the discovery page
that lists its identity providers, the request sent to the one chosen, the assertion
consumer service that reads its answer, single logout, and this service provider's
metadata. The checks are archive/accounts/saml.py's; this edge translates.

Every refusal is a page in the visitor's language with a reference: the same reference is
logged with the reason, so that a person who writes to the library can be helped. Nothing is
created by a refused answer. The pages are the person's own: never cached, no Referrer.

What SAML keeps between the request and the answer (the request's ID, the NameID for single
logout) is in `request.saml_session`, djangosaml2's second session: its cookie is
SameSite=None, so that it comes back with the identity provider's cross-site POST.
"""
from __future__ import annotations

import logging
import uuid

import saml2
from django.conf import settings
from django.contrib import auth
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import add_never_cache_headers, patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from ..accounts import federation, services, tasks
from ..refusals import Refusal
from ..web import nudges
from ..web.addresses import base_url

logger = logging.getLogger(__name__)


def _saml():
    """archive/accounts/saml.py, imported by the first SAML request rather than with the
    URLconf: pysaml2 builds its XML schemas as it is imported, most of a second of CPU that
    every process loading the URLconf (a web worker, a command's system checks) paid, SAML or
    not."""
    from ..accounts import saml

    return saml


def _private(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    patch_cache_control(response, private=True)
    response["Referrer-Policy"] = "same-origin"
    return response


def _refused(request: HttpRequest, exc: Refusal) -> HttpResponse:
    reference = uuid.uuid4().hex[:12]
    logger.warning("SAML sign-in refused [%s]: %s: %s %s", reference, type(exc).__name__, exc,
                   getattr(exc, "detail", ""))
    context = {"reason": str(exc), "reference": reference,
               "missing": getattr(exc, "missing", None)}
    return _private(render(request, "archive/accounts/saml_refused.html", context,
                           status=exc.status))


def _next(request: HttpRequest, value: str) -> str:
    if value and url_has_allowed_host_and_scheme(value, allowed_hosts={request.get_host()},
                                                 require_https=request.is_secure()):
        return value
    return settings.LOGIN_REDIRECT_URL


@require_safe
def metadata(request: HttpRequest) -> HttpResponse:
    """This service provider's SAML metadata, for the federation's registry; 503 saying why
    when the settings cannot make it (`manage.py check` says so too: archive.E104)."""
    try:
        document = _saml().sp_metadata()
    except ImproperlyConfigured as exc:
        return HttpResponse(_("This service provider's metadata cannot be made: %(reason)s")
                            % {"reason": exc}, status=503,
                            content_type="text/plain; charset=utf-8")
    response = HttpResponse(document, content_type="application/samlmetadata+xml")
    response["Cache-Control"] = "public, max-age=3600"
    return response


@require_safe
def discovery(request: HttpRequest) -> HttpResponse:
    """The federation's institutions, searched by name (`q`): each a link that signs in."""
    query = request.GET.get("q", "").strip()[:200]
    nxt = _next(request, request.GET.get("next", ""))
    providers = _saml().providers(query, get_language() or "en")
    return _private(render(request, "archive/accounts/saml_discovery.html", {
        "providers": providers, "query": query, "next": nxt,
        "available": federation.current() is not None}))


@require_safe
def login(request: HttpRequest) -> HttpResponse:
    """`?idp=<entityID>&next=<path>`: off to the institution with an authentication
    request."""
    try:
        location = _saml().begin(entity_id=request.GET.get("idp", ""),
                              relay_state=_next(request, request.GET.get("next", "")),
                              session=request.saml_session)
    except Refusal as exc:
        return _refused(request, exc)
    return _private(redirect(location))


@csrf_exempt  # the institution posts here; the answer is signed, and bound to this session
@require_POST
def acs(request: HttpRequest) -> HttpResponse:
    """The institution's answer (HTTP-POST binding): signed in, or the reason why not."""
    saml = _saml()
    try:
        signed_in = saml.finish(saml_response=request.POST.get("SAMLResponse", ""),
                                session=request.saml_session)
    except Refusal as exc:
        return _refused(request, exc)
    user = signed_in.user
    if not user.is_active:
        # An address the institution does not speak for: proved by a link, as a sign-up.
        services.ask_verification(email=user.email, base=base_url(request),
                                  language=get_language() or "")
        transaction.on_commit(lambda: nudges.soon(tasks.mail_account_mails))
        return _private(redirect(reverse("archive:account_verify_sent") + "?resent"))
    auth.login(request, user, backend="archive.accounts.backends.EmailBackend")
    request.saml_session[saml.SESSION_SUBJECT] = signed_in.name_id
    request.saml_session[saml.SESSION_ISSUER] = signed_in.issuer
    # Where the person was going, as this site wrote it when it sent the request (the
    # RelayState that comes back is only the IdP's echo of it).
    return _private(redirect(_next(request, signed_in.next)))


@require_POST
def logout(request: HttpRequest) -> HttpResponse:
    """Signed out here, then at the institution when it offers single logout."""
    location = _saml().logout_location(session=request.saml_session)
    auth.logout(request)
    if location is None:
        request.saml_session.flush()
    return _private(redirect(location or settings.LOGOUT_REDIRECT_URL))


@csrf_exempt  # the institution sends these; they are signed
@require_http_methods(["GET", "POST"])
def sls(request: HttpRequest) -> HttpResponse:
    """Single logout service: the institution's answer to ours, or its own request."""
    post = request.method == "POST"
    data = request.POST if post else request.GET
    binding = saml2.BINDING_HTTP_POST if post else saml2.BINDING_HTTP_REDIRECT
    try:
        location = _saml().logout_answer(data=data, binding=binding, session=request.saml_session)
    except Refusal as exc:
        return _refused(request, exc)
    auth.logout(request)
    request.saml_session.flush()
    return _private(redirect(location or settings.LOGOUT_REDIRECT_URL))
